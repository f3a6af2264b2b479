// The key table (Refine's useTable props) and its pager: antd's Pagination on Refine's page state,
// with the spec's "Showing page X of Y (N total)" and Previous/Next. Delete hides itself from
// those who may not delete keys.
import { DeleteOutlined } from "@ant-design/icons";
import { Button, Flex, Pagination, Typography } from "antd";
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
import { formatColumn } from "../table/columns";
import { RowDangerButton } from "../table/list-actions";
import { ListTable, type TableList } from "../table/list-table";

type Props = {
  list: TableList<PersonalApiKey>;
  errorText: (error: unknown) => string;
  /** Refine's page (1-based) and its setter. */
  currentPage: number;
  total: number;
  onPageChange: (page: number) => void;
  onDelete: (apiKeyId: string) => void;
};

export function ApiKeysTable({ list, errorText, currentPage, total, onPageChange, onDelete }: Props) {
  const pages = pageCount(total);
  const loading = Boolean(list.tableProps.loading);
  // On a phone the dates go under the key and the table fits the screen (no sideways scroll).
  const mobile = useIsMobile();
  return (
    <>
      <ListTable<PersonalApiKey>
        list={list}
        failed="The API keys could not be loaded."
        errorText={errorText}
        empty="No API keys found"
        // The pager is below, not the table's: antd's Table drops its pager on an empty list, and the
        // spec shows "Showing page 1 of 1 (0 total)" there too.
        pager={false}
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
                formatColumn<PersonalApiKey, number>("Created", "created_at", formatEpochDate),
                formatColumn<PersonalApiKey, number>("Expires", "expires_at_seconds", expiresLabel, {
                  empty: expiresLabel(null),
                }),
              ]),
          {
            title: "Actions",
            key: "actions",
            width: mobile ? undefined : 120,
            render: (_: unknown, key: PersonalApiKey) => (
              <RowDangerButton
                resource={apiKeys.name}
                icon={<DeleteOutlined />}
                label="Delete"
                ariaLabel={`Delete API key ${key.api_key_id}`}
                onClick={() => onDelete(key.api_key_id)}
              />
            ),
          },
        ]}
      />
      {/* The list page's card stacks it 16px below the table. */}
      <Pagination
        style={{ justifyContent: "flex-end", rowGap: 8 }}
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
