// "/eval-runs": the cost of each eval run of a billing cycle, for administrators. Paged, sorted,
// searched and filtered by the server (GET /v1/eval-runs); each run opens its own page.
import { useTable } from "@refinedev/antd";
import { type CrudFilter, type HttpError, useLink } from "@refinedev/core";
import { Empty, Flex, Select, Typography } from "antd";
import { useMemo, useState } from "react";
import { EVAL_RUN_PAGE_SIZE, type EvalRun } from "../../../contract/eval-runs";
import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney } from "../../../contract/money";
import { QueryTable } from "../../components/feedback/query-table";
import { PageList } from "../../components/layout/page-list";
import { SearchBox } from "../../components/search-box";
import { formatUtcDateTime, periodLabel } from "../../lib/billing/dates";
import { orDash } from "../../lib/billing/labels";
import { evalRunPath, exactMoney } from "../../lib/eval-runs";
import { evalRuns as resource } from "../../resources/eval-runs";
import { useBillingCycles, useBillingWorkspaces } from "../billing/use-billing-data";

const SEARCH_DEBOUNCE_MS = 300;
const MAX_SEARCH_LENGTH = 200;

type Choice = { search: string; workspaces: string[]; cycle: string | null };

function filtersOf(c: Choice): CrudFilter[] {
  return [
    { field: "search", operator: "contains", value: c.search },
    { field: "workspace_uuid", operator: "in", value: c.workspaces },
    { field: "billing_cycle_uuid", operator: "eq", value: c.cycle },
  ];
}

export function EvalRunsListPage() {
  const Link = useLink();
  const { cycles } = useBillingCycles();
  const { workspaces } = useBillingWorkspaces();
  const [choice, setChoice] = useState<Choice>({ search: "", workspaces: [], cycle: null });
  const { tableProps, tableQuery, setFilters, setCurrentPage } = useTable<EvalRun, HttpError>({
    resource: resource.name,
    syncWithLocation: false,
    pagination: { currentPage: 1, pageSize: EVAL_RUN_PAGE_SIZE, mode: "server" },
    sorters: { mode: "server", initial: [{ field: "started_at", order: "desc" }] },
    filters: { mode: "server" },
    errorNotification: false,
  });

  const choose = (next: Partial<Choice>) => {
    const merged = { ...choice, ...next };
    setChoice(merged);
    setFilters(filtersOf(merged), "replace");
    setCurrentPage(1);
  };

  const cycleOptions = useMemo(
    () =>
      [...(cycles ?? [])].reverse().map((c) => ({
        value: c.billing_cycle_uuid,
        label: periodLabel(c.billing_cycle_start_date, c.billing_cycle_end_date),
      })),
    [cycles],
  );
  const searching = choice.search !== "";

  return (
    <PageList resource={resource.name} title="Eval Runs">
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          What each eval run cost in a billing cycle, from the usage its events carry. Open a run for its cost
          per operation and its events.
        </Typography.Paragraph>
        <Flex gap={12} wrap align="start">
          <SearchBox
            label="Search eval runs"
            placeholder="Search by run ID or eval name..."
            delayMs={SEARCH_DEBOUNCE_MS}
            onSearch={(value) => choose({ search: value.trim().slice(0, MAX_SEARCH_LENGTH) })}
          />
          <Select
            aria-label="Workspace"
            data-testid="eval-runs-workspace"
            mode="multiple"
            allowClear
            placeholder="All workspaces"
            style={{ minWidth: 220 }}
            value={choice.workspaces}
            onChange={(uuids: string[]) => choose({ workspaces: uuids })}
            options={workspaces.map((w) => ({ value: w.workspace_uuid, label: w.name }))}
            optionFilterProp="label"
          />
          <Select
            aria-label="Billing period"
            data-testid="eval-runs-period"
            style={{ minWidth: 240 }}
            placeholder="Current billing period"
            value={choice.cycle ?? undefined}
            allowClear
            onChange={(uuid: string | undefined) => choose({ cycle: uuid ?? null })}
            options={cycleOptions}
          />
        </Flex>
        <QueryTable<EvalRun>
          query={tableQuery}
          failed="The eval runs could not be loaded."
          empty={
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={
                searching ? `No eval runs match "${choice.search}"` : "No eval runs in this billing period"
              }
            />
          }
          {...tableProps}
          rowKey="eval_run_uuid"
          size="middle"
          scroll={{ x: 940 }}
          pagination={{
            ...tableProps.pagination,
            showSizeChanger: false,
            position: ["bottomRight"],
            showTotal: (total) => `${total} run${total === 1 ? "" : "s"}`,
          }}
          columns={[
            {
              title: "Run ID",
              dataIndex: "eval_run_uuid",
              key: "eval_run_uuid",
              width: 170,
              ellipsis: true,
              render: (run: string) => (
                <Link to={evalRunPath(run, choice.cycle)}>
                  <Typography.Text code style={{ fontSize: 12 }}>
                    {run}
                  </Typography.Text>
                </Link>
              ),
            },
            {
              title: "Eval",
              dataIndex: "eval_name",
              key: "eval_name",
              ellipsis: true,
              render: (name: string | null) => orDash(name),
            },
            {
              title: "Workspace",
              dataIndex: "workspace_name",
              key: "workspace_name",
              width: 160,
              ellipsis: true,
            },
            {
              title: "Eval Type",
              dataIndex: "eval_type",
              key: "eval_type",
              width: 120,
              render: (type: string | null) => (type ? evalTypeLabel(type) : "-"),
            },
            {
              title: "Started",
              dataIndex: "started_at",
              key: "started_at",
              width: 185,
              sorter: true,
              defaultSortOrder: "descend",
              render: (at: string) => formatUtcDateTime(at),
            },
            {
              title: "Events",
              dataIndex: "events",
              key: "events",
              width: 95,
              align: "right",
              sorter: true,
              render: (n: number) => n.toLocaleString("en-US"),
            },
            {
              title: "Cost",
              dataIndex: "cost",
              key: "cost",
              width: 110,
              align: "right",
              fixed: "right",
              sorter: true,
              render: (cost: string) => <span title={exactMoney(cost)}>{formatMoney(cost)}</span>,
            },
          ]}
        />
      </Flex>
    </PageList>
  );
}
