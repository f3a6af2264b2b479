// "/organization/audit-log": the organization's audit trail for administrators, newest first,
// paged by the server, with filters and a CSV export of everything they match. Members never get
// here: the resource's access declaration guards the route and hides the sider entry.
import { FilterDropdown } from "@refinedev/antd";
import { Card, Flex, Input, Select, Tag, Tooltip, Typography } from "antd";
import { AuditExportButton } from "../../components/audit-log/audit-export-button";
import {
  AuditFilterBar,
  type AuditFormValues,
  auditFormToValues,
} from "../../components/audit-log/audit-filter-bar";
import { PageList } from "../../components/layout/page-list";
import { formatColumn } from "../../components/table/columns";
import { ListTable } from "../../components/table/list-table";
import { useListTable } from "../../components/table/use-list-table";
import {
  ACTION_OPTIONS,
  type AuditEntry,
  actionLabel,
  actionMeaning,
  auditFilters,
  auditFilterValues,
  changeSummary,
  formatAuditTime,
  sourceLabel,
  targetTypeLabel,
} from "../../lib/audit-log";
import { AUDIT_PAGE_SIZE } from "../../lib/page-sizes";
import { auditLog as resource } from "../../resources/audit-log";

export function AuditLogPage() {
  // Paging and filters are Refine's, kept in the URL; the form and the export read them back.
  const list = useListTable<AuditEntry, AuditFormValues>({
    resource: resource.name,
    pageSize: AUDIT_PAGE_SIZE,
    onSearch: (values) => auditFilters(auditFormToValues(values)),
  });
  const applied = auditFilterValues(list.filters);

  return (
    <PageList
      resource={resource.name}
      title="Audit Log"
      headerButtons={<AuditExportButton filters={applied} />}
    >
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          Every administrative and security action in your organization: who did it, from where, to what, and
          what changed. Entries cannot be edited or deleted.
        </Typography.Paragraph>
        <Card size="small">
          <AuditFilterBar
            searchFormProps={list.searchFormProps}
            applied={applied}
            onReset={() => list.setFilters([], "replace")}
          />
        </Card>
        <ListTable<AuditEntry>
          list={list}
          failed="The audit log could not be loaded."
          empty="No audit log entries match these filters"
          scroll={{ x: 900 }}
          pager={{ right: true }}
          columns={[
            formatColumn<AuditEntry>("Time", "at", formatAuditTime, { width: 190 }),
            {
              title: "Action",
              dataIndex: "action",
              key: "action",
              // Column filters are Refine's filters on the field of their key (useTable's onChange),
              // controlled by them so the column shows what the URL says.
              filteredValue: applied.action ?? null,
              filterDropdown: (props) => (
                <FilterDropdown {...props}>
                  <Select
                    aria-label="Action"
                    mode="multiple"
                    allowClear
                    placeholder="Any action"
                    options={ACTION_OPTIONS}
                    optionFilterProp="label"
                    maxTagCount={2}
                    style={{ minWidth: 260 }}
                  />
                </FilterDropdown>
              ),
              render: (action: string) => (
                <Tooltip title={actionMeaning(action)}>
                  <Flex vertical>
                    <span>{actionLabel(action)}</span>
                    <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
                      {action}
                    </Typography.Text>
                  </Flex>
                </Tooltip>
              ),
            },
            {
              title: "Actor",
              key: "actor",
              filteredValue: applied.actor ? [applied.actor] : null,
              filterDropdown: (props) => (
                <FilterDropdown {...props} mapValue={(keys) => (Array.isArray(keys) ? keys[0] : keys)}>
                  <Input
                    aria-label="Actor"
                    placeholder="Email or user ID"
                    allowClear
                    style={{ width: 220 }}
                  />
                </FilterDropdown>
              ),
              render: (_: unknown, e: AuditEntry) => (
                <Flex vertical gap={2}>
                  <span>{e.actor_email ?? "Command line"}</span>
                  <Flex gap={4} wrap>
                    <Tag>{sourceLabel(e.source)}</Tag>
                    {e.impersonator_user_id ? (
                      <Tag color="orange">Impersonated by {e.impersonator_user_id}</Tag>
                    ) : null}
                  </Flex>
                </Flex>
              ),
            },
            {
              title: "Target",
              key: "target",
              render: (_: unknown, e: AuditEntry) => (
                <Flex vertical gap={2}>
                  <span>{e.target_label ?? e.target_id}</span>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {targetTypeLabel(e.target_type)} · {e.target_id}
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              title: "Change",
              key: "change",
              render: (_: unknown, e: AuditEntry) => changeSummary(e) || "—",
            },
          ]}
        />
      </Flex>
    </PageList>
  );
}
