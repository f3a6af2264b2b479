// Cost & Usage Records: Refine's table of the usage records (use-records-table) with antd's own
// sorters (an up or down arrow, clicking toggles), a details card per row, Export to CSV, and the
// spec's pager under it, fed by the table's page, page count and total. Loading, empty and error
// are the shared list block's (QueryTable), as on every list.
import { ArrowDownOutlined, ArrowUpOutlined, SwapOutlined } from "@ant-design/icons";
import { Card, type TableColumnType, Typography } from "antd";
import { type HTMLAttributes, type ReactNode, useEffect, useState } from "react";
import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney, formatUnitPrice, toMicros } from "../../../contract/money";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { QueryTable } from "../../components/feedback/query-table";
import { SearchBox } from "../../components/search-box";
import { useIsMobile } from "../../hooks/use-is-mobile";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { type SortField, usageQuery } from "../../lib/billing/filters";
import { operationLabel, orDash } from "../../lib/billing/labels";
import { RECORDS_PAGE_SIZE } from "../../lib/billing/paging";
import { ExportControl } from "./export-control";
import { HoverRow } from "./hover-row";
import { RecordsPager } from "./records-pager";
import type { UsageScope } from "./use-billing-state";
import type { RecordsTable as Records } from "./use-records-table";

/** antd's sort order of a column (ascend, descend or none). */
type SortOrder = TableColumnType<unknown>["sortOrder"];

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

/** antd's sort icon as one arrow: up ascending, down descending, faint while another column sorts. */
function SortArrow({ sortOrder }: { sortOrder: SortOrder }) {
  if (!sortOrder) return <SwapOutlined rotate={90} style={{ opacity: 0.3, fontSize: 11 }} aria-hidden />;
  return sortOrder === "ascend" ? (
    <ArrowUpOutlined style={{ fontSize: 11, color: "#a99cff" }} aria-hidden />
  ) : (
    <ArrowDownOutlined style={{ fontSize: 11, color: "#a99cff" }} aria-hidden />
  );
}

type Props = {
  /** The period the records are read for (not ready: nothing is known about them yet). */
  scope: UsageScope;
  /** The period shown, once the cycles are in (the export names it). */
  cycleUuid: string | undefined;
  records: Records;
};

export function RecordsTable({ scope, cycleUuid, records }: Props) {
  const { tableProps, tableQuery: query, result, currentPage, setCurrentPage, pageCount, sort } = records;
  const { usageFilters: filters, search } = records;
  const isMobile = useIsMobile();
  // The text in the search box, ahead of `search` by the debounce delay.
  const [typed, setTyped] = useState(search);

  // The filters and search the shown rows and total belong to: until the first page of new ones
  // is in (or while the search is still being typed) the pager says so instead of showing the
  // previous total, or zero before anything has loaded, and its buttons wait.
  const filtersKey = JSON.stringify([scope.cycleUuid, filters, search]);
  const fetchedKey = query.isSuccess && !query.isPlaceholderData ? filtersKey : null;
  // Starts from an answer the first render already holds (from the cache), so that the effect
  // below has nothing to change and the table does not render twice before it shows.
  const [shownKey, setShownKey] = useState<string | null>(fetchedKey);
  useEffect(() => {
    if (fetchedKey !== null) setShownKey(fetchedKey);
  }, [fetchedKey]);
  const searchPending = typed.trim() !== search;
  const unanswered = !scope.ready || (shownKey !== filtersKey && fetchedKey !== filtersKey);
  const stale = !query.isError && (searchPending || unanswered);
  const pending = stale ? (searchPending || search ? "Searching..." : "Loading...") : null;

  const total = result.total ?? 0;
  const busy = query.isFetching || stale;

  // A page past the end (an old link, or records gone since): the last page instead.
  const pages = Math.max(1, pageCount);
  const pastEnd = !stale && !query.isFetching && query.isSuccess && currentPage > pages;
  useEffect(() => {
    if (pastEnd) setCurrentPage(pages);
  }, [pastEnd, pages, setCurrentPage]);

  const columns: TableColumnType<UsageRecord>[] = COLUMNS.map((c) => ({
    key: c.field,
    dataIndex: c.field,
    title: c.title,
    align: c.align,
    width: c.width,
    fixed: c.fixed,
    ellipsis: true,
    sorter: true,
    // Controlled by Refine's sorters; clicking the sorted column flips it, never unsorts.
    sortOrder: sort.field === c.field ? (sort.order === "asc" ? "ascend" : "descend") : null,
    sortDirections: ["ascend", "descend", "ascend"],
    sortIcon: SortArrow,
    showSorterTooltip: false,
    render: (_: unknown, record: UsageRecord) => c.render(record),
  }));

  const exportControl = (
    <ExportControl query={cycleUuid ? usageQuery(cycleUuid, filters, search) : null} total={total} />
  );
  return (
    // On a phone the two export buttons leave no room for the title: they open the card's body.
    <Card title="Cost & Usage Records" extra={isMobile ? undefined : exportControl}>
      {isMobile ? <div style={{ marginBottom: 12 }}>{exportControl}</div> : null}
      <SearchBox
        label="Search records"
        placeholder="Search..."
        delayMs={SEARCH_DEBOUNCE_MS}
        initialValue={search}
        onSearch={(value) => records.setSearch(value.trim().slice(0, MAX_SEARCH_LENGTH))}
        onType={setTyped}
      />
      <QueryTable<UsageRecord>
        {...tableProps}
        // Not "no records" before the answer: the blank body of a full page, so nothing moves.
        query={{ isError: query.isError, isLoading: unanswered, error: query.error, refetch: query.refetch }}
        failed="The records could not be loaded."
        empty={search ? `No records match "${search}"` : "No usage records for this selection"}
        loadingHeight={RECORDS_PAGE_SIZE * ROW_HEIGHT - 32}
        dataSource={result.data}
        rowKey="usage_event_uuid"
        size="middle"
        loading={busy}
        columns={columns}
        pagination={false}
        scroll={{ x: MIN_TABLE_WIDTH }}
        components={{ body: { row: HoverRow } }}
        onRow={(record) => ({ record }) as HTMLAttributes<HTMLElement>}
      />
      <RecordsPager
        page={currentPage}
        pages={pages}
        total={total}
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
