// The key table (Refine's useTable props) and its pager: antd's Pagination on Refine's page state,
// with the spec's "Showing page X of Y (N total)" and Previous/Next. Delete hides itself from
// those who may not delete keys.
import { DeleteOutlined } from "@ant-design/icons";
import { CanAccess } from "@refinedev/core";
import { Button, Flex, Pagination, type TableProps, Typography } from "antd";
import { useIsMobile } from "../../hooks/use-is-mobile";
import {
  API_KEY_PAGE_SIZE,
  expiresLabel,
  formatEpochDate,
  type PersonalApiKey,
  pageCount,
  paginationText,
} from "../../lib/api-keys";
import { apiKeys } from "../../resources/api-keys";
import { type ListQuery, QueryTable } from "../feedback/query-table";

type Props = {
  tableProps: TableProps<PersonalApiKey>;
  query: ListQuery;
  errorText: (error: unknown) => string;
  /** Refine's page (1-based) and its setter. */
  currentPage: number;
  total: number;
  onPageChange: (page: number) => void;
  onDelete: (apiKeyId: string) => void;
};

export function ApiKeysTable({
  tableProps,
  query,
  errorText,
  currentPage,
  total,
  onPageChange,
  onDelete,
}: Props) {
  const pages = pageCount(total);
  const loading = Boolean(tableProps.loading);
  // On a phone the dates go under the key and the table fits the screen (no sideways scroll).
  const mobile = useIsMobile();
  return (
    <>
      <QueryTable<PersonalApiKey>
        query={query}
        failed="The API keys could not be loaded."
        errorText={errorText}
        empty="No API keys found"
        {...tableProps}
        rowKey="api_key_id"
        size="middle"
        // The pager is below, not the table's: antd's Table drops its pager on an empty list, and the
        // spec shows "Showing page 1 of 1 (0 total)" there too.
        pagination={false}
        scroll={mobile ? undefined : { x: 640 }}
        columns={[
          {
            title: "Key ID",
            dataIndex: "api_key_id",
            key: "api_key_id",
            render: (id: string, key: PersonalApiKey) =>
              mobile ? (
                <Flex vertical gap={4}>
                  <Typography.Text code style={{ wordBreak: "break-all" }}>
                    {id}
                  </Typography.Text>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    Created {formatEpochDate(key.created_at)} · Expires {expiresLabel(key.expires_at_seconds)}
                  </Typography.Text>
                </Flex>
              ) : (
                <Typography.Text code>{id}</Typography.Text>
              ),
          },
          ...(mobile
            ? []
            : [
                {
                  title: "Created",
                  dataIndex: "created_at",
                  key: "created_at",
                  render: (seconds: number) => formatEpochDate(seconds),
                },
                {
                  title: "Expires",
                  dataIndex: "expires_at_seconds",
                  key: "expires_at_seconds",
                  render: (seconds: number | null) => expiresLabel(seconds),
                },
              ]),
          {
            title: "Actions",
            key: "actions",
            width: mobile ? undefined : 120,
            render: (_: unknown, key: PersonalApiKey) => (
              <CanAccess resource={apiKeys.name} action="delete">
                <Button
                  danger
                  type="text"
                  icon={<DeleteOutlined />}
                  aria-label={`Delete API key ${key.api_key_id}`}
                  onClick={() => onDelete(key.api_key_id)}
                >
                  Delete
                </Button>
              </CanAccess>
            ),
          },
        ]}
      />
      <Pagination
        style={{ marginTop: 16, justifyContent: "flex-end", rowGap: 8 }}
        current={currentPage}
        pageSize={API_KEY_PAGE_SIZE}
        total={total}
        showSizeChanger={false}
        disabled={loading}
        showTotal={() => (
          <Typography.Text type="secondary" data-testid="api-keys-pagination" aria-live="polite">
            {paginationText(currentPage - 1, total)}
          </Typography.Text>
        )}
        itemRender={(_page, type, element) =>
          type === "prev" ? (
            <Button tabIndex={-1} disabled={loading || currentPage <= 1}>
              Previous
            </Button>
          ) : type === "next" ? (
            <Button tabIndex={-1} disabled={loading || currentPage >= pages}>
              Next
            </Button>
          ) : (
            element
          )
        }
        onChange={onPageChange}
      />
    </>
  );
}
