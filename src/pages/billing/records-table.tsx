// Cost & Usage Records: Refine's useTable on /v1/usage/records (paged, sorted, searched and
// filtered on the server), sortable headers with arrows, a details card per row, Export to CSV.
import { ArrowDownOutlined, ArrowUpOutlined, SwapOutlined } from "@ant-design/icons";
import { type CrudSort, type HttpError, useTable } from "@refinedev/core";
import { Alert, Button, Card, Empty, Flex, Popover, Table, type TableColumnType, Typography } from "antd";
import { type HTMLAttributes, type ReactNode, useEffect, useMemo, useState } from "react";
import { SearchBox } from "../../components/search-box";
import { formatUtcDateTime } from "../../lib/billing/dates";
import {
  type BillingFilters,
  DEFAULT_SORT,
  nextSort,
  type SortField,
  usageCrudFilters,
  usageQuery,
} from "../../lib/billing/filters";
import { evalTypeLabel, operationLabel, orDash } from "../../lib/billing/labels";
import { formatMoney, formatUnitPrice, toMicros } from "../../lib/billing/money";
import { RECORDS_PAGE_SIZE } from "../../lib/billing/paging";
import type { UsageRecord } from "../../lib/billing/types";
import { USAGE_RECORDS } from "../../providers/data-provider";
import { EventDetails } from "./event-details";
import { ExportControl } from "./export-control";
import { RecordsPager } from "./records-pager";

const SEARCH_DEBOUNCE_MS = 300;
const MIN_TABLE_WIDTH = 1200;

type Column = {
  field: SortField;
  title: string;
  render: (r: UsageRecord) => ReactNode;
  width: number;
  align?: "right";
  fixed?: "right";
};

const COLUMNS: Column[] = [
  { field: "date", title: "Date", width: 185, render: (r) => formatUtcDateTime(r.date) },
  { field: "name", title: "Eval", width: 200, render: (r) => orDash(r.name) },
  { field: "operation", title: "Operation", width: 115, render: (r) => operationLabel(r.operation) },
  { field: "eval_type", title: "Eval Type", width: 125, render: (r) => evalTypeLabel(r.eval_type) },
  { field: "workspace_name", title: "Workspace", width: 175, render: (r) => orDash(r.workspace_name) },
  { field: "created_by", title: "Created By", width: 185, render: (r) => orDash(r.created_by) },
  {
    field: "quantity",
    title: "Quantity",
    align: "right",
    width: 100,
    render: (r) => String(r.quantity ?? 1),
  },
  {
    field: "unit_price",
    title: "Unit Price",
    align: "right",
    width: 120,
    render: (r) => formatUnitPrice(r.unit_price),
  },
  {
    field: "cost",
    title: "Cost",
    align: "right",
    width: 100,
    fixed: "right",
    render: (r) => {
      const micros = toMicros(r.cost);
      return <span style={micros < 0n ? { color: "#49aa19" } : undefined}>{formatMoney(micros)}</span>;
    },
  },
];

function SortArrow({ active, order }: { active: boolean; order: CrudSort["order"] | undefined }) {
  if (!active) return <SwapOutlined rotate={90} style={{ opacity: 0.3, fontSize: 11 }} aria-hidden />;
  return order === "asc" ? (
    <ArrowUpOutlined style={{ fontSize: 11, color: "#a99cff" }} aria-hidden />
  ) : (
    <ArrowDownOutlined style={{ fontSize: 11, color: "#a99cff" }} aria-hidden />
  );
}

type RowProps = HTMLAttributes<HTMLTableRowElement> & { record?: UsageRecord };

/** A body row with the details card on hover or keyboard focus. */
function HoverRow({ record, ...props }: RowProps) {
  if (!record) return <tr {...props} />;
  return (
    <Popover
      title="Usage Event Details"
      content={<EventDetails record={record} />}
      trigger={["hover", "focus"]}
      placement="top"
      mouseEnterDelay={0.3}
      destroyOnHidden
    >
      <tr {...props} tabIndex={0} aria-label={`Usage event ${record.name ?? record.usage_event_uuid}`} />
    </Popover>
  );
}

type Props = { cycleUuid: string | undefined; filters: BillingFilters };

export function RecordsTable({ cycleUuid, filters }: Props) {
  const [search, setSearch] = useState("");
  // The text in the search box, ahead of `search` by the debounce delay.
  const [typed, setTyped] = useState("");

  const crudFilters = useMemo(
    () => (cycleUuid ? usageCrudFilters(cycleUuid, filters, search) : []),
    [cycleUuid, filters, search],
  );
  // The period, filters and search are permanent filters of the table. When they change, the
  // query waits one render for the page to go back to 1, so only the first page is fetched.
  const filtersKey = JSON.stringify(crudFilters);
  const [appliedKey, setAppliedKey] = useState(filtersKey);
  const { tableQuery, result, currentPage, setCurrentPage, sorters, setSorters } = useTable<
    UsageRecord,
    HttpError
  >({
    resource: USAGE_RECORDS,
    syncWithLocation: false,
    pagination: { currentPage: 1, pageSize: RECORDS_PAGE_SIZE, mode: "server" },
    filters: { mode: "server", permanent: crudFilters },
    sorters: { mode: "server", initial: [DEFAULT_SORT] },
    errorNotification: false,
    queryOptions: {
      enabled: !!cycleUuid && appliedKey === filtersKey,
      placeholderData: (previous) => previous,
    },
  });
  useEffect(() => {
    if (appliedKey === filtersKey) return;
    setCurrentPage(1);
    setAppliedKey(filtersKey);
  }, [appliedKey, filtersKey, setCurrentPage]);

  // The filters and search the shown rows and total belong to: while the first page of new ones
  // is on its way (or the search is still being typed) the pager says so instead of showing the
  // previous total, and its buttons wait.
  const [shownKey, setShownKey] = useState<string | null>(null);
  const fetchedKey = tableQuery.isSuccess && !tableQuery.isPlaceholderData ? appliedKey : null;
  useEffect(() => {
    if (fetchedKey !== null) setShownKey(fetchedKey);
  }, [fetchedKey]);
  const searchPending = typed.trim() !== search;
  const stale = !!cycleUuid && !tableQuery.isError && (searchPending || shownKey !== filtersKey);
  const pending = stale ? (searchPending || search ? "Searching..." : "Loading...") : null;

  const sort = sorters[0] ?? DEFAULT_SORT;
  const total = result.total ?? 0;
  const busy = tableQuery.isFetching || stale;

  const columns: TableColumnType<UsageRecord>[] = COLUMNS.map((c) => {
    const active = sort.field === c.field;
    return {
      key: c.field,
      title: (
        <Flex align="center" gap={6} justify={c.align === "right" ? "flex-end" : "flex-start"}>
          {c.title}
          <SortArrow active={active} order={sort.order} />
        </Flex>
      ),
      align: c.align,
      width: c.width,
      fixed: c.fixed,
      ellipsis: true,
      sorter: true,
      sortOrder: active ? (sort.order === "asc" ? "ascend" : "descend") : null,
      sortIcon: () => null,
      showSorterTooltip: false,
      render: (_: unknown, record: UsageRecord) => c.render(record),
    };
  });

  return (
    <Card
      title="Cost & Usage Records"
      extra={
        <ExportControl query={cycleUuid ? usageQuery(cycleUuid, filters, search) : null} total={total} />
      }
    >
      <SearchBox
        label="Search records"
        placeholder="Search..."
        delayMs={SEARCH_DEBOUNCE_MS}
        onSearch={(value) => setSearch(value.trim())}
        onType={setTyped}
      />
      {tableQuery.isError ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 16 }}
          message="The records could not be loaded."
          description={tableQuery.error?.message}
          action={<Button onClick={() => tableQuery.refetch()}>Retry</Button>}
        />
      ) : null}
      <Table<UsageRecord>
        rowKey="usage_event_uuid"
        size="middle"
        loading={busy}
        dataSource={[...result.data]}
        columns={columns}
        pagination={false}
        scroll={{ x: MIN_TABLE_WIDTH }}
        components={{ body: { row: HoverRow } }}
        onRow={(record) => ({ record }) as HTMLAttributes<HTMLElement>}
        onChange={(_pagination, _filters, sorter) => {
          const field = (Array.isArray(sorter) ? sorter[0] : sorter)?.columnKey as SortField | undefined;
          if (!field) return;
          setSorters([nextSort(sort, field)]);
          setCurrentPage(1);
        }}
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={search ? `No records match "${search}"` : "No usage records for this selection"}
            />
          ),
        }}
      />
      <RecordsPager
        page={currentPage}
        total={total}
        pageSize={RECORDS_PAGE_SIZE}
        busy={busy}
        pending={pending}
        onPage={setCurrentPage}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        Hover or focus a row for its details.
      </Typography.Text>
    </Card>
  );
}
