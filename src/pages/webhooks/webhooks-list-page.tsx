// "/organization/webhooks": the organization's webhook endpoints for administrators: add one (its
// signing secret is shown once), edit, enable or disable, rotate the secret, delete; each URL opens
// the endpoint's page with its delivery log.
import { DeleteOutlined, EditOutlined, KeyOutlined, PlusOutlined } from "@ant-design/icons";
import { useModalForm, useTable } from "@refinedev/antd";
import { CanAccess, type HttpError, useLink } from "@refinedev/core";
import { Button, Empty, Flex, Switch, Tag, Tooltip, Typography } from "antd";
import { PageList } from "../../components/layout/page-list";
import { ResourceCreateButton } from "../../components/table/list-actions";
import { ListTable } from "../../components/table/list-table";
import { webhookEndpoints as resource } from "../../resources/webhook-endpoints";
import { useEndpointEditModal, useWebhookActions, webhookFailure } from "./use-webhook-actions";
import { WebhookFormModal, type WebhookFormValues } from "./webhook-form-modal";
import { WebhookSecretDialog } from "./webhook-secret-dialog";
import { formatTime, type WebhookEndpoint, type WebhookEndpointWithSecret } from "./webhook-text";

export const showPath = (id: string) => `/organization/webhooks/${encodeURIComponent(id)}`;

export function WebhooksListPage() {
  const Link = useLink();
  const actions = useWebhookActions();
  const table = useTable<WebhookEndpoint, HttpError>({
    resource: resource.name,
    pagination: { mode: "off" },
    sorters: { mode: "off" },
    filters: { mode: "off" },
    errorNotification: false,
  });
  const createModal = useModalForm<WebhookEndpoint, HttpError, WebhookFormValues>({
    resource: resource.name,
    action: "create",
    redirect: false,
    successNotification: false,
    errorNotification: webhookFailure("Failed to add the endpoint."),
    onMutationSuccess: (res) => actions.showSecret((res.data as WebhookEndpointWithSecret).secret),
  });
  const editModal = useEndpointEditModal();

  const addButton = (label: string) => (
    <ResourceCreateButton
      resource={resource.name}
      icon={<PlusOutlined />}
      label={label}
      onCreate={() => createModal.show()}
    />
  );
  const rows = table.tableQuery.data?.data ?? [];

  return (
    <PageList
      resource={resource.name}
      title="Webhooks"
      headerButtons={rows.length > 0 ? addButton("Add Endpoint") : null}
    >
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          Your organization's events, such as budget alerts, are POSTed to these URLs as JSON signed with each
          endpoint's secret; failed deliveries are retried for about a day.
        </Typography.Paragraph>
        <ListTable<WebhookEndpoint>
          list={table}
          failed="The webhook endpoints could not be loaded."
          empty={
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No webhook endpoints yet">
              {addButton("Add Your First Endpoint")}
            </Empty>
          }
          pager={false}
          scroll={{ x: 800 }}
          columns={[
            {
              title: "Endpoint",
              dataIndex: "url",
              render: (url: string, e) => (
                <Flex vertical gap={2}>
                  <Link to={showPath(e.endpoint_uuid)}>
                    <Typography.Text code style={{ wordBreak: "break-all" }}>
                      {url}
                    </Typography.Text>
                  </Link>
                  {e.description ? <Typography.Text type="secondary">{e.description}</Typography.Text> : null}
                </Flex>
              ),
            },
            {
              title: "Events",
              dataIndex: "events",
              render: (events: string[]) => (
                <Flex gap={4} wrap>
                  {events.map((ev) => (
                    <Tag key={ev}>{ev}</Tag>
                  ))}
                </Flex>
              ),
            },
            {
              title: "Enabled",
              dataIndex: "enabled",
              width: 100,
              render: (enabled: boolean, e) => (
                <Switch
                  checked={enabled}
                  loading={actions.pending.update}
                  aria-label={`${enabled ? "Disable" : "Enable"} ${e.url}`}
                  onChange={(on) => actions.setEnabled(e, on)}
                />
              ),
            },
            { title: "Created", dataIndex: "created_at", width: 190, render: formatTime },
            {
              title: "Actions",
              key: "actions",
              width: 150,
              render: (_, e) => (
                <Flex gap={4}>
                  <Tooltip title="Edit">
                    <Button
                      size="small"
                      icon={<EditOutlined />}
                      aria-label={`Edit ${e.url}`}
                      onClick={() => editModal.show(e.endpoint_uuid)}
                    />
                  </Tooltip>
                  <Tooltip title="Rotate secret">
                    <Button
                      size="small"
                      icon={<KeyOutlined />}
                      aria-label={`Rotate the secret of ${e.url}`}
                      onClick={() => actions.askRotate(e)}
                    />
                  </Tooltip>
                  <Tooltip title="Delete">
                    <Button
                      size="small"
                      danger
                      icon={<DeleteOutlined />}
                      aria-label={`Delete ${e.url}`}
                      onClick={() => actions.askDelete(e)}
                    />
                  </Tooltip>
                </Flex>
              ),
            },
          ]}
        />
      </Flex>
      <CanAccess resource={resource.name} action="create">
        <WebhookFormModal action="create" modal={createModal} />
      </CanAccess>
      <WebhookFormModal action="edit" modal={editModal} />
      <WebhookSecretDialog
        secret={actions.secret?.value ?? null}
        rotated={actions.secret?.rotated ?? false}
        onClose={actions.closeSecret}
      />
      {actions.dialogs}
    </PageList>
  );
}
