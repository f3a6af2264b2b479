// "/operator/ingest-keys": the keys the platform's eval services send usage with, revoked ones too:
// create one (for every organization or one; its token is shown once), revoke one after a
// confirmation. Provider operators only.
import { PlusOutlined, StopOutlined } from "@ant-design/icons";
import { useModalForm, useTable } from "@refinedev/antd";
import { CanAccess, type HttpError, useDelete, useLink, useMany, useNavigation } from "@refinedev/core";
import { Button, Card, Flex, Form, Input, Tag, Typography } from "antd";
import { useState } from "react";
import { QueryTable } from "../../components/feedback/query-table";
import { PageList } from "../../components/layout/page-list";
import { NewIngestKeyDialog } from "../../components/operator/new-ingest-key-dialog";
import { OperatorFormModal } from "../../components/operator/operator-form-modal";
import { OrganizationSelect } from "../../components/operator/organization-select";
import { RevokeIngestKeyDialog } from "../../components/operator/revoke-ingest-key-dialog";
import { RefreshAndCreate } from "../../components/table/refresh-and-create";
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
  const [revoking, setRevoking] = useState<IngestKey | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const { tableProps, tableQuery } = useTable<IngestKey, HttpError>({
    resource: resource.name,
    pagination: { currentPage: 1, pageSize: 20, mode: "client" },
    sorters: { mode: "off" },
    filters: { mode: "off" },
    errorNotification: false,
  });
  const keys = tableQuery.data?.data ?? [];
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

  const { mutate: revoke, mutation: revocation } = useDelete<IngestKey, HttpError>();
  const askRevoke = (key: IngestKey) => {
    setRevokeError(null);
    setRevoking(key);
  };
  const confirmRevoke = () => {
    if (!revoking) return;
    revoke(
      {
        resource: resource.name,
        id: revoking.ingest_key_uuid,
        successNotification: () => ({
          type: "success",
          key: "ingest-key-revoked",
          message: `Ingestion key "${revoking.name}" revoked`,
        }),
        errorNotification: false,
      },
      {
        onSuccess: () => setRevoking(null),
        onError: (error) => setRevokeError(error.message || "The key could not be revoked."),
      },
    );
  };

  return (
    <PageList
      resource={resource.name}
      title="Ingestion Keys"
      headerButtons={
        <RefreshAndCreate
          query={tableQuery}
          resource={resource.name}
          icon={<PlusOutlined />}
          label="Create ingestion key"
          onCreate={() => createModal.show()}
        />
      }
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        <Flex vertical gap={16}>
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            The platform's eval services send usage events with these keys; customers cannot. A key sends for
            every organization or for one. Tokens are shown once, when the key is created.
          </Typography.Paragraph>
          <QueryTable<IngestKey>
            query={tableQuery}
            failed="The ingestion keys could not be loaded."
            empty="No ingestion keys yet"
            {...tableProps}
            rowKey="ingest_key_uuid"
            size="middle"
            scroll={{ x: 900 }}
            pagination={{ ...tableProps.pagination, showSizeChanger: false, hideOnSinglePage: true }}
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
              {
                title: "Created",
                dataIndex: "created_at",
                key: "created_at",
                width: 190,
                render: (at: string) => formatUtcDateTime(at),
              },
              {
                title: "Last used",
                dataIndex: "last_used_at",
                key: "last_used_at",
                width: 190,
                render: (at: string | null) => (at ? formatUtcDateTime(at) : "Never"),
              },
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
                    <CanAccess resource={resource.name} action="delete">
                      <Button
                        danger
                        type="text"
                        icon={<StopOutlined />}
                        aria-label={`Revoke ingestion key ${k.name}`}
                        onClick={() => askRevoke(k)}
                      >
                        Revoke
                      </Button>
                    </CanAccess>
                  ),
              },
            ]}
          />
        </Flex>
      </Card>
      <CanAccess resource={resource.name} action="create">
        <OperatorFormModal
          modal={createModal}
          name="ingest-key"
          title="Create ingestion key"
          okText="Create"
          toBody={ingestKeyBody}
        >
          <Form.Item label="Name" name="name" htmlFor="ingest-key-name" extra='Empty: "Ingestion key".'>
            <Input id="ingest-key-name" maxLength={200} placeholder="e.g. Safety eval service" autoFocus />
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
      <RevokeIngestKeyDialog
        ingestKey={revoking}
        pending={revocation.isPending}
        error={revokeError}
        onConfirm={confirmRevoke}
        onCancel={() => setRevoking(null)}
      />
    </PageList>
  );
}
