// The key table (Refine's useTable props) with its own pager: "Showing page X of Y (N total)"
// and Previous/Next. Delete hides itself from those who may not delete keys.
import { DeleteOutlined } from "@ant-design/icons";
import { CanAccess } from "@refinedev/core";
import { Button, Empty, Flex, Table, type TableProps, Typography } from "antd";
import { useIsMobile } from "../../hooks/use-is-mobile";
import {
  expiresLabel,
  formatEpochDate,
  type PersonalApiKey,
  pageCount,
  paginationText,
} from "../../lib/api-keys";
import { apiKeys } from "../../resources/api-keys";
import { PlainText } from "../plain-text";

type Props = {
  tableProps: TableProps<PersonalApiKey>;
  pageIndex: number;
  total: number;
  onPageChange: (pageIndex: number) => void;
  onDelete: (apiKeyId: string) => void;
};

export function ApiKeysTable({ tableProps, pageIndex, total, onPageChange, onDelete }: Props) {
  const pages = pageCount(total);
  const loading = Boolean(tableProps.loading);
  // On a phone the dates go under the key and the table fits the screen (no sideways scroll).
  const mobile = useIsMobile();
  return (
    <>
      <Table<PersonalApiKey>
        {...tableProps}
        rowKey="api_key_id"
        size="middle"
        pagination={false}
        scroll={mobile ? undefined : { x: 640 }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No API keys found" /> }}
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
                  <PlainText type="secondary" style={{ fontSize: 12 }}>
                    Created {formatEpochDate(key.created_at)} · Expires {expiresLabel(key.expires_at_seconds)}
                  </PlainText>
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
      <Flex justify="space-between" align="center" wrap gap={8} style={{ marginTop: 16 }}>
        <PlainText type="secondary" data-testid="api-keys-pagination" aria-live="polite">
          {paginationText(pageIndex, total)}
        </PlainText>
        <Flex gap={8}>
          <Button disabled={loading || pageIndex <= 0} onClick={() => onPageChange(pageIndex - 1)}>
            Previous
          </Button>
          <Button disabled={loading || pageIndex + 1 >= pages} onClick={() => onPageChange(pageIndex + 1)}>
            Next
          </Button>
        </Flex>
      </Flex>
    </>
  );
}
