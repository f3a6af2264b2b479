// "/organization/webhooks/:id": one webhook endpoint (its URL, events, state) with its actions, and
// its delivery log: every event sent to it, newest first, with status, attempts, the last answer
// and the next retry; a failed (or any) delivery can be sent again. The log refreshes itself while
// a delivery is pending.
import { EditOutlined, SendOutlined } from "@ant-design/icons";
import { Show, useTable } from "@refinedev/antd";
import { type HttpError, useNavigation, useShow } from "@refinedev/core";
import { Alert, Button, Descriptions, Flex, Switch, Tag, Tooltip, Typography } from "antd";
import { ListCard } from "../../components/table/list-actions";
import { ListTable } from "../../components/table/list-table";
import { webhookEndpoints as resource, webhookDeliveries } from "../../resources/webhook-endpoints";
import { useEndpointEditModal, useWebhookActions } from "./use-webhook-actions";
import { WebhookFormModal } from "./webhook-form-modal";
import { WebhookSecretDialog } from "./webhook-secret-dialog";
import {
  eventMeaning,
  formatTime,
  STATUS_TAG,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "./webhook-text";

const LOG_PAGE_SIZE = 20;
const PENDING_REFRESH_MS = 2_000;

function DeliveryLog({
  endpoint,
  onRetry,
}: {
  endpoint: WebhookEndpoint;
  onRetry: (d: WebhookDelivery) => void;
}) {
  const table = useTable<WebhookDelivery, HttpError>({
    resource: webhookDeliveries.name,
    meta: { endpointId: endpoint.endpoint_uuid },
    pagination: { currentPage: 1, pageSize: LOG_PAGE_SIZE, mode: "server" },
    sorters: { mode: "off" },
    filters: { mode: "off" },
    errorNotification: false,
    queryOptions: {
      // While a delivery waits for its (next) attempt, its outcome is about to change.
      refetchInterval: (q) =>
        (q.state.data?.data ?? []).some((d) => d.status === "pending") ? PENDING_REFRESH_MS : false,
    },
  });
  return (
    <ListCard title="Delivery log" query={table.tableQuery}>
      <ListTable<WebhookDelivery>
        list={table}
        failed="The delivery log could not be loaded."
        empty="No deliveries yet. Send a test event to try the endpoint."
        scroll={{ x: 1100 }}
        pager={{ one: "delivery", many: "deliveries" }}
        expandable={{
          expandedRowRender: (d) => (
            <Flex vertical gap={8}>
              {d.last_error ? (
                <div>
                  <Typography.Text strong>Last error or answer: </Typography.Text>
                  <Typography.Text code style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
                    {d.last_error}
                  </Typography.Text>
                </div>
              ) : null}
              <Typography.Text strong>Payload</Typography.Text>
              <pre style={{ margin: 0, whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
                {JSON.stringify(d.payload, null, 2)}
              </pre>
            </Flex>
          ),
        }}
        columns={[
          {
            title: "Status",
            dataIndex: "status",
            width: 110,
            render: (status: WebhookDelivery["status"]) => (
              <Tag color={STATUS_TAG[status].color}>{STATUS_TAG[status].label}</Tag>
            ),
          },
          {
            title: "Event",
            dataIndex: "event_type",
            width: 330,
            render: (type: string, d) => (
              <Flex vertical gap={2}>
                <Tooltip title={eventMeaning(type)}>
                  <Typography.Text code style={{ whiteSpace: "nowrap" }}>
                    {type}
                  </Typography.Text>
                </Tooltip>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {d.event_id}
                </Typography.Text>
              </Flex>
            ),
          },
          { title: "Created", dataIndex: "created_at", width: 180, render: formatTime },
          { title: "Attempts", dataIndex: "attempts", width: 90, align: "right" },
          {
            title: "Last answer",
            dataIndex: "last_status_code",
            width: 130,
            render: (code: number | null, d) =>
              code !== null ? (
                <Typography.Text type={code >= 200 && code < 300 ? "success" : "danger"}>
                  HTTP {code}
                </Typography.Text>
              ) : d.attempts > 0 && d.last_error ? (
                <Tooltip title={d.last_error}>
                  <Typography.Text type="danger">No answer</Typography.Text>
                </Tooltip>
              ) : (
                "—"
              ),
          },
          {
            title: "Next attempt",
            dataIndex: "next_attempt_at",
            width: 180,
            render: (at: string | null, d) => (d.status === "pending" ? formatTime(at) : "—"),
          },
          {
            title: "",
            key: "retry",
            width: 90,
            render: (_, d) => (
              <Button
                size="small"
                onClick={() => onRetry(d)}
                aria-label={`Retry delivery ${d.event_id}`}
                disabled={!endpoint.enabled}
              >
                Retry
              </Button>
            ),
          },
        ]}
      />
    </ListCard>
  );
}

export function WebhookShowPage() {
  const { list } = useNavigation();
  const actions = useWebhookActions({ onDeleted: () => list(resource.name) });
  const { query } = useShow<WebhookEndpoint, HttpError>({
    resource: resource.name,
    errorNotification: false,
  });
  const endpoint = query.data?.data;
  const editModal = useEndpointEditModal();

  return (
    <Show
      resource={resource.name}
      isLoading={query.isLoading}
      title="Webhook endpoint"
      breadcrumb={false}
      canEdit={false}
      canDelete={false}
      headerButtons={
        endpoint ? (
          <Flex gap={8} wrap>
            <Button
              type="primary"
              icon={<SendOutlined />}
              onClick={() => actions.sendTest(endpoint)}
              loading={actions.pending.call}
              disabled={!endpoint.enabled}
            >
              Send test event
            </Button>
            <Button icon={<EditOutlined />} onClick={() => editModal.show(endpoint.endpoint_uuid)}>
              Edit
            </Button>
            <Button onClick={() => actions.askRotate(endpoint)}>Rotate secret</Button>
            <Button danger onClick={() => actions.askDelete(endpoint)}>
              Delete
            </Button>
          </Flex>
        ) : null
      }
    >
      {query.isError ? (
        <Alert
          type="error"
          showIcon
          message={
            query.error?.statusCode === 404
              ? "No such webhook endpoint."
              : "The endpoint could not be loaded."
          }
          description={query.error?.message}
        />
      ) : endpoint ? (
        <Flex vertical gap={16}>
          <Descriptions bordered size="small" column={1}>
            <Descriptions.Item label="URL">
              <Typography.Text code copyable style={{ wordBreak: "break-all" }}>
                {endpoint.url}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label="Description">{endpoint.description || "—"}</Descriptions.Item>
            <Descriptions.Item label="Events">
              <Flex gap={4} wrap>
                {endpoint.events.map((ev) => (
                  <Tooltip key={ev} title={eventMeaning(ev)}>
                    <Tag>{ev}</Tag>
                  </Tooltip>
                ))}
              </Flex>
            </Descriptions.Item>
            <Descriptions.Item label="Enabled">
              <Flex gap={8} align="center">
                <Switch
                  checked={endpoint.enabled}
                  loading={actions.pending.update}
                  aria-label={endpoint.enabled ? "Disable endpoint" : "Enable endpoint"}
                  onChange={(on) => actions.setEnabled(endpoint, on)}
                />
                <Typography.Text type="secondary">
                  {endpoint.enabled ? "Receiving events" : "Disabled: deliveries wait until it is enabled"}
                </Typography.Text>
              </Flex>
            </Descriptions.Item>
            {endpoint.breaker && endpoint.breaker.state !== "closed" ? (
              <Descriptions.Item label="Delivery">
                <Flex gap={8} align="center" wrap>
                  <Tag color={endpoint.breaker.state === "open" ? "red" : "orange"}>
                    {endpoint.breaker.state === "open" ? "Paused" : "Probing"}
                  </Tag>
                  <Typography.Text type="secondary">
                    {`${endpoint.breaker.consecutive_failures} failed attempts in a row: `}
                    {endpoint.breaker.state === "open"
                      ? `deliveries wait until ${formatTime(endpoint.breaker.paused_until ?? "")} (a test event tries at once)`
                      : "one delivery at a time until one succeeds"}
                  </Typography.Text>
                </Flex>
              </Descriptions.Item>
            ) : null}
            <Descriptions.Item label="Created">{formatTime(endpoint.created_at)}</Descriptions.Item>
          </Descriptions>
          <DeliveryLog endpoint={endpoint} onRetry={(d) => actions.retry(endpoint, d)} />
        </Flex>
      ) : null}
      <WebhookFormModal action="edit" modal={editModal} />
      <WebhookSecretDialog secret={actions.secret?.value ?? null} rotated onClose={actions.closeSecret} />
      {actions.dialogs}
    </Show>
  );
}
