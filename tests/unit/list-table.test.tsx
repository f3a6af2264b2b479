import { render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { formatColumn, moneyColumn } from "../../src/components/table/columns";
import { ListTable } from "../../src/components/table/list-table";

// The list kit every list draws its table with: rows keyed by Refine's id, the console's pagers
// (the total in the list's noun, no pager while one page holds the list), and the shared columns.

type Row = { id: string; name: string; created_at: string | null; amount: string };

const rows = (n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `row-${i}`,
    name: `Row ${i}`,
    created_at: i === 0 ? null : "2026-03-01T10:00:00Z",
    amount: "1250.5",
  }));

const list = (data: Row[], pageSize = 2) => ({
  tableProps: { dataSource: data, pagination: { current: 1, pageSize, total: data.length } },
  tableQuery: { isError: false, isLoading: false, error: null, refetch: vi.fn() },
});

const columns = [
  { title: "Name", dataIndex: "name", key: "name" },
  formatColumn<Row>("Created", "created_at", (at) => at.slice(0, 10), { empty: "Never" }),
  moneyColumn<Row>("Amount", "amount"),
];

describe("ListTable", () => {
  it("counts the total in the list's own noun", () => {
    render(
      <ListTable<Row>
        list={list(rows(3))}
        failed="failed"
        empty="none"
        pager={{ one: "run" }}
        columns={columns}
      />,
    );
    expect(screen.getByText("3 runs")).toBeInTheDocument();
    expect(screen.getByRole("listitem", { name: "2" })).toBeInTheDocument();
  });

  it("hides the pager while one page holds the list", () => {
    render(
      <ListTable<Row>
        list={list(rows(2))}
        failed="failed"
        empty="none"
        pager={{ one: "rule", single: true }}
        columns={columns}
      />,
    );
    expect(screen.getAllByRole("row")).toHaveLength(3);
    expect(screen.queryByText("2 rules")).toBeNull();
  });

  it("shows formatted fields, a placeholder where there is none, and amounts in dollars", () => {
    render(
      <ListTable<Row> list={list(rows(2))} failed="failed" empty="none" pager={false} columns={columns} />,
    );
    const [, first, second] = screen.getAllByRole("row");
    expect(within(first!).getByText("Never")).toBeInTheDocument();
    expect(within(second!).getByText("2026-03-01")).toBeInTheDocument();
    expect(within(second!).getByText("$1,250.50")).toBeInTheDocument();
  });

  it("says the list is empty in its own words", () => {
    render(<ListTable<Row> list={list([])} failed="failed" empty="No runs yet" columns={columns} />);
    expect(screen.getByText("No runs yet")).toBeInTheDocument();
  });
});
