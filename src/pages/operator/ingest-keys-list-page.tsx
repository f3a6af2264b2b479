// "/operator/ingest-keys": the keys the platform's eval services send usage with, revoked ones too:
// create one (for every organization or one; its token is shown once), revoke one after a
// confirmation. Provider operators only.
import { PlusOutlined, StopOutlined } from "@ant-design/icons";
import { useModalForm, useTable } from "@refinedev/antd";
import { CanAccess, type HttpError, useLink, useMany, useNavigation } from "@refinedev/core";
import { Flex, Form, Input, Tag, Typography } from "antd";
import { useState } from "react";
import { DangerConfirmDialog } from "../../components/danger-confirm-dialog";
import { ListPage } from "../../components/layout/list-page";
import { NewIngestKeyDialog } from "../../components/operator/new-ingest-key-dialog";
import { OperatorFormModal } from "../../components/operator/operator-form-modal";
import { OrganizationSelect } from "../../components/operator/organization-select";
import { formatColumn } from "../../components/table/columns";
import { RowDangerButton } from "../../components/table/list-actions";
import { ListTable } from "../../components/table/list-table";
import { useConfirmedDelete } from "../../hooks/use-confirmed-delete";
import { formatUtcDateTime } from "../../lib/billing/dates";
import {
  type IngestKey,
  ingestKeyBody,
  type NewIngestKey,
  type OperatorOrganization,
} from "../../lib/operator";
import { operatorIngestKeys as resource } from "../../resources/operator-ingest-keys";
import { operatorOrganizations } from "../../resources/operator-organizations";

export function OperatorIngestKeysListPage() {
  const Link = useLink();
  const { showUrl } = useNavigation();
  const [created, setCreated] = useState<NewIngestKey | null>(null);

  const table = useTable<IngestKey, HttpError>({
    resource: resource.name,
    pagination: { currentPage: 1, pageSize: 20, mode: "client" },
    sorters: { mode: "off" },
    filters: { mode: "off" },
    errorNotification: false,
  });
  const keys = table.tableQuery.data?.data ?? [];
  const orgIds = [...new Set(keys.flatMap((k) => (k.organization_uuid ? [k.organization_uuid] : [])))];
  const { result: orgs } = useMany<OperatorOrganization, HttpError>({
    resource: operatorOrganizations.name,
    ids: orgIds,
    errorNotification: false,
    queryOptions: { enabled: orgIds.length > 0 },
  });
  const orgNames = new Map((orgs.data ?? []).map((o) => [o.organization_uuid, o.name]));

  const createModal = useModalForm<NewIngestKey, HttpError, ReturnType<typeof ingestKeyBody>>({
    resource: resource.name,
    action: "create",
    redirect: false,
    errorNotification: false,
    successNotification: false,
    onMutationSuccess: (res) => setCreated(res.data),
  });

  const revoke = useConfirmedDelete<IngestKey>({
    resource: resource.name,
    id: (k) => k.ingest_key_uuid,
    successNotification: (k) => ({
      type: "success",
      key: "ingest-key-revoked",
      message: `Ingestion key "${k.name}" revoked`,
    }),
    failed: "The key could not be revoked.",
  });

  return (
    <ListPage
      resource={resource.name}
      title="Ingestion Keys"
      query={table.tableQuery}
      create={{ icon: <PlusOutlined />, label: "Create ingestion key", onCreate: () => createModal.show() }}
      intro="The platform's eval services send usage events with these keys; customers cannot. A key sends for every organization or for one. Tokens are shown once, when the key is created."
      modals={
        <>
          <CanAccess resource={resource.name} action="create">
            <OperatorFormModal
              modal={createModal}
              name="ingest-key"
              title="Create ingestion key"
              okText="Create"
              toBody={ingestKeyBody}
            >
              <Form.Item label="Name" name="name" htmlFor="ingest-key-name" extra='Empty: "Ingestion key".'>
                <Input
                  id="ingest-key-name"
                  maxLength={200}
                  placeholder="e.g. Safety eval service"
                  autoFocus
                />
              </Form.Item>
              <Form.Item
                label="Sends for"
                name="organization"
                htmlFor="ingest-key-organization"
                extra="Empty: every organization (each call then names its organization)."
              >
                <OrganizationSelect
                  id="ingest-key-organization"
                  allowClear
                  placeholder="Every organization"
                  enabled={createModal.modalProps.open === true}
                />
              </Form.Item>
            </OperatorFormModal>
          </CanAccess>
          <NewIngestKeyDialog created={created} onClose={() => setCreated(null)} />
          <DangerConfirmDialog title="Revoke ingestion key" okText="Revoke" {...revoke.dialog}>
            <Typography.Paragraph>
              Revoke the ingestion key <Typography.Text strong>{revoke.target?.name}</Typography.Text>? Eval
              services sending usage with it are refused at once. This cannot be undone.
            </Typography.Paragraph>
          </DangerConfirmDialog>
        </>
      }
    >
      <ListTable<IngestKey>
        list={table}
        failed="The ingestion keys could not be loaded."
        empty="No ingestion keys yet"
        scroll={{ x: 900 }}
        pager={{ single: true }}
        columns={[
          {
            title: "Name",
            dataIndex: "name",
            key: "name",
            ellipsis: true,
            render: (name: string, k) => (
              <Flex vertical gap={0}>
                <span>{name}</span>
                <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
                  {k.ingest_key_uuid}
                </Typography.Text>
              </Flex>
            ),
          },
          {
            title: "Sends for",
            dataIndex: "organization_uuid",
            key: "organization_uuid",
            width: 200,
            ellipsis: true,
            render: (org: string | null) =>
              org ? (
                <Link to={showUrl(operatorOrganizations.name, org)}>{orgNames.get(org) ?? org}</Link>
              ) : (
                <Tag>Every organization</Tag>
              ),
          },
          formatColumn<IngestKey>("Created", "created_at", formatUtcDateTime, { width: 190 }),
          formatColumn<IngestKey>("Last used", "last_used_at", formatUtcDateTime, {
            width: 190,
            empty: "Never",
          }),
          {
            title: "Status",
            dataIndex: "revoked_at",
            key: "status",
            width: 110,
            render: (at: string | null) =>
              at ? (
                <Tag title={`Revoked ${formatUtcDateTime(at)}`}>Revoked</Tag>
              ) : (
                <Tag color="success">Active</Tag>
              ),
          },
          {
            title: "Actions",
            key: "actions",
            width: 120,
            render: (_, k) =>
              k.revoked_at ? null : (
                <RowDangerButton
                  resource={resource.name}
                  icon={<StopOutlined />}
                  label="Revoke"
                  ariaLabel={`Revoke ingestion key ${k.name}`}
                  onClick={() => revoke.ask(k)}
                />
              ),
          },
        ]}
      />
    </ListPage>
  );
}
