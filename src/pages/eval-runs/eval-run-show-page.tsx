// "/eval-runs/:id": one eval run (GET /v1/eval-runs/{id}): its figures, its cost per operation and
// its events, which are the usage records of the run (the records endpoint with the run's filter,
// in the billing cycle the figures come from), so the page's cost is the sum of the events shown.
import { useTable } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Card, Descriptions, Empty, Flex, Statistic, Table, Typography } from "antd";
import { useSearchParams } from "react-router";
import type { EvalRunDetail, EvalRunOperation } from "../../../contract/eval-runs";
import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney } from "../../../contract/money";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { RunOutcomesCard } from "../../components/eval-runs/run-outcomes-card";
import { PageShow } from "../../components/layout/page-show";
import { useRecordPage } from "../../components/layout/use-record-page";
import { formatColumn } from "../../components/table/columns";
import { ListTable } from "../../components/table/list-table";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { operationLabel, orDash } from "../../lib/billing/labels";
import { exactMoney } from "../../lib/eval-runs";
import { evalRuns as resource } from "../../resources/eval-runs";
import { usageRecords } from "../../resources/usage-records";
import { ReservationCard } from "./reservation-card";

const EVENTS_PAGE_SIZE = 10;

function RunEvents({ run, cycle }: { run: string; cycle: string }) {
  const table = useTable<UsageRecord, HttpError>({
    resource: usageRecords.name,
    pagination: { currentPage: 1, pageSize: EVENTS_PAGE_SIZE, mode: "server" },
    sorters: { mode: "server", initial: [{ field: "date", order: "asc" }] },
    filters: {
      mode: "server",
      permanent: [
        { field: "eval_run_uuid", operator: "eq", value: run },
        { field: "billing_cycle_uuid", operator: "eq", value: cycle },
      ],
    },
    errorNotification: false,
  });
  return (
    <Card title="Events" data-testid="eval-run-events">
      <ListTable<UsageRecord>
        list={table}
        failed="The run's events could not be loaded."
        empty="No events in this billing period yet"
        scroll={{ x: 900 }}
        pager={{ one: "event" }}
        columns={[
          {
            ...formatColumn<UsageRecord>("Date", "date", formatUtcDateTime, { width: 190 }),
            sorter: true,
            defaultSortOrder: "ascend",
          },
          {
            title: "Operation",
            dataIndex: "operation",
            key: "operation",
            render: (op: string) => operationLabel(op),
          },
          {
            title: "Created By",
            dataIndex: "created_by",
            key: "created_by",
            render: (v: string | null) => orDash(v),
          },
          { title: "Quantity", dataIndex: "quantity", key: "quantity", align: "right", sorter: true },
          {
            title: "Unit Price",
            dataIndex: "unit_price",
            key: "unit_price",
            align: "right",
            render: (v: string) => exactMoney(v),
          },
          {
            title: "Cost",
            dataIndex: "cost",
            key: "cost",
            align: "right",
            sorter: true,
            render: (v: string) => <span data-testid="event-cost">{exactMoney(v)}</span>,
          },
          { title: "Note", dataIndex: "notes", key: "notes", render: (v: string | null) => orDash(v) },
        ]}
      />
    </Card>
  );
}

export function EvalRunShowPage() {
  const [params] = useSearchParams();
  const cycle = params.get("billing_cycle_uuid");
  // 414: an id too long for a URL cannot name a run either.
  const {
    record: run,
    backLink,
    fallback,
  } = useRecordPage<EvalRunDetail>({
    resource: resource.name,
    listLabel: "Eval Runs",
    notFound: "Eval run not found",
    failed: "The eval run could not be loaded.",
    missingStatuses: [404, 400, 414],
    meta: cycle ? { query: { billing_cycle_uuid: cycle } } : {},
  });
  if (fallback !== null || !run) return fallback;

  return (
    <Flex vertical gap={16}>
      {backLink}
      <PageShow resource={resource.name} recordItemId={run.eval_run_uuid} title={run.eval_name ?? "Eval run"}>
        <Flex gap={16} wrap>
          <Card style={{ flex: "1 1 200px" }}>
            <Statistic title="Cost" value={formatMoney(run.cost)} />
            <Typography.Text type="secondary" data-testid="run-cost-exact">
              {exactMoney(run.cost)} exact
            </Typography.Text>
          </Card>
          <Card style={{ flex: "1 1 200px" }}>
            <Statistic title="Events" value={run.events} data-testid="run-events" />
          </Card>
          <Card style={{ flex: "1 1 200px" }}>
            <Statistic title="Quantity" value={run.quantity} />
          </Card>
        </Flex>
        <Card title="Run">
          <Descriptions
            size="small"
            column={{ xs: 1, md: 2 }}
            items={[
              {
                key: "id",
                label: "Run ID",
                children: (
                  <Typography.Text code copyable>
                    {run.eval_run_uuid}
                  </Typography.Text>
                ),
              },
              { key: "eval", label: "Eval", children: orDash(run.eval_name) },
              { key: "evalId", label: "Eval ID", children: orDash(run.eval_uuid) },
              {
                key: "type",
                label: "Eval Type",
                children: run.eval_type ? evalTypeLabel(run.eval_type) : "-",
              },
              { key: "workspace", label: "Workspace", children: run.workspace_name },
              { key: "by", label: "Started By", children: orDash(run.started_by) },
              { key: "started", label: "Started", children: formatUtcDateTime(run.started_at) },
              {
                key: "last",
                label: "Last Event",
                children: run.last_event_at ? formatUtcDateTime(run.last_event_at) : "-",
              },
            ]}
          />
        </Card>
        <Flex gap={16} wrap>
          <div style={{ flex: "1 1 360px" }}>
            <RunOutcomesCard figures={run} />
          </div>
          {run.reservation ? (
            <div style={{ flex: "1 1 360px" }}>
              <ReservationCard reservation={run.reservation} />
            </div>
          ) : null}
        </Flex>
        <Card title="Cost per Operation" data-testid="eval-run-operations">
          <Table<EvalRunOperation>
            rowKey="operation"
            size="small"
            pagination={false}
            dataSource={run.operations}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No usage yet" /> }}
            columns={[
              {
                title: "Operation",
                dataIndex: "operation",
                key: "operation",
                render: (op: string) => operationLabel(op),
              },
              { title: "Events", dataIndex: "events", key: "events", align: "right" },
              { title: "Quantity", dataIndex: "quantity", key: "quantity", align: "right" },
              {
                title: "Cost",
                dataIndex: "cost",
                key: "cost",
                align: "right",
                render: (v: string) => exactMoney(v),
              },
            ]}
          />
        </Card>
        <RunEvents run={run.eval_run_uuid} cycle={run.billing_cycle_uuid} />
      </PageShow>
    </Flex>
  );
}
