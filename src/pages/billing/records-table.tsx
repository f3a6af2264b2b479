// Cost & Usage Records: the usage-records resource (/v1/usage/records, paged, sorted, searched and
// filtered on the server), sortable headers with arrows, a details card per row, Export to CSV.
// The list is read with useList rather than a useTable: a table hook keeps page and sort as its
// own state (or, synced with the location, in its own address format read without checks), and
// here the address (lib/billing/view-url) is the one source for them as for the rest of the view.
import { ArrowDownOutlined, ArrowUpOutlined, SwapOutlined } from "@ant-design/icons";
import { type CrudSort, type HttpError, useList } from "@refinedev/core";
import { Alert, Button, Card, Empty, Flex, Popover, Table, type TableColumnType, Typography } from "antd";
import { type HTMLAttributes, type ReactNode, useEffect, useMemo, useState } from "react";
import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney, formatUnitPrice, toMicros } from "../../../contract/money";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { SearchBox } from "../../components/search-box";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { nextSort, type SortField, usageCrudFilters, usageQuery } from "../../lib/billing/filters";
import { operationLabel, orDash } from "../../lib/billing/labels";
import { pageCount, RECORDS_PAGE_SIZE } from "../../lib/billing/paging";
import { usageRecords } from "../../resources/usage-records";
import { EventDetails } from "./event-details";
import { ExportControl } from "./export-control";
import { RecordsPager } from "./records-pager";
import type { BillingState } from "./use-billing-state";

const SEARCH_DEBOUNCE_MS = 300;
/** The records endpoint's limit on the search text. */
const MAX_SEARCH_LENGTH = 200;
const MIN_TABLE_WIDTH = 1200;
/** A body row's height (antd's middle size). */
const ROW_HEIGHT = 47;

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

type Props = {
  cycleUuid: string | undefined;
  /** The period is still being read: nothing is known about the records yet. */
  waiting: boolean;
  state: BillingState;
};

export function RecordsTable({ cycleUuid, waiting, state }: Props) {
  const { filters, search, sort, page } = state.view;
  // The text in the search box, ahead of `search` by the debounce delay.
  const [typed, setTyped] = useState(search);

  const crudFilters = useMemo(
    () => (cycleUuid ? usageCrudFilters(cycleUuid, filters, search) : []),
    [cycleUuid, filters, search],
  );
  // Page, sort, period, filters and search come from the address; the list is read from the
  // server one page at a time, the previous page staying on screen while the next one loads.
  const { result, query } = useList<UsageRecord, HttpError>({
    resource: usageRecords.name,
    pagination: { currentPage: page, pageSize: RECORDS_PAGE_SIZE, mode: "server" },
    filters: crudFilters,
    sorters: [sort],
    errorNotification: false,
    queryOptions: { enabled: !!cycleUuid, placeholderData: (previous) => previous },
  });

  // The filters and search the shown rows and total belong to: until the first page of new ones
  // is in (or while the search is still being typed) the pager says so instead of showing the
  // previous total, or zero before anything has loaded, and its buttons wait.
  const filtersKey = JSON.stringify(crudFilters);
  const [shownKey, setShownKey] = useState<string | null>(null);
  const fetchedKey = query.isSuccess && !query.isPlaceholderData ? filtersKey : null;
  useEffect(() => {
    if (fetchedKey !== null) setShownKey(fetchedKey);
  }, [fetchedKey]);
  const searchPending = typed.trim() !== search;
  const unanswered = cycleUuid ? shownKey !== filtersKey && fetchedKey !== filtersKey : waiting;
  const stale = !query.isError && (searchPending || unanswered);
  const pending = stale ? (searchPending || search ? "Searching..." : "Loading...") : null;

  const total = result.total ?? 0;
  const busy = query.isFetching || stale;

  // A page past the end (an old link, or records gone since): the last page instead.
  const pages = pageCount(total, RECORDS_PAGE_SIZE);
  const pastEnd = !stale && !query.isFetching && query.isSuccess && page > pages;
  useEffect(() => {
    if (pastEnd) state.setPage(pages);
  }, [pastEnd, pages, state.setPage]);

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
        initialValue={search}
        onSearch={(value) => state.setSearch(value.trim().slice(0, MAX_SEARCH_LENGTH))}
        onType={setTyped}
      />
      {query.isError ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 16 }}
          message="The records could not be loaded."
          description={query.error?.message}
          action={<Button onClick={() => query.refetch()}>Retry</Button>}
        />
      ) : null}
      <Table<UsageRecord>
        rowKey="usage_event_uuid"
        size="middle"
        loading={busy}
        dataSource={[...(result.data ?? [])]}
        columns={columns}
        pagination={false}
        scroll={{ x: MIN_TABLE_WIDTH }}
        components={{ body: { row: HoverRow } }}
        onRow={(record) => ({ record }) as HTMLAttributes<HTMLElement>}
        onChange={(_pagination, _filters, sorter) => {
          const field = (Array.isArray(sorter) ? sorter[0] : sorter)?.columnKey as SortField | undefined;
          if (!field) return;
          state.setSort(nextSort(sort, field));
        }}
        locale={{
          emptyText: unanswered ? (
            // Not "no records" before the answer: the room of a full page, so nothing moves.
            <div style={{ height: RECORDS_PAGE_SIZE * ROW_HEIGHT - 32 }} aria-busy />
          ) : (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={search ? `No records match "${search}"` : "No usage records for this selection"}
            />
          ),
        }}
      />
      <RecordsPager
        page={page}
        total={total}
        pageSize={RECORDS_PAGE_SIZE}
        busy={busy}
        pending={pending}
        onPage={state.setPage}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        Hover or focus a row for its details.
      </Typography.Text>
    </Card>
  );
}
