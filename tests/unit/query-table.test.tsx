import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { QueryTable } from "../../src/components/feedback/query-table";

// The list block of every list page: the error with Retry, no empty state before the answer, the
// empty state after it, and the rows.

const columns = [{ title: "Name", dataIndex: "name" }];
const query = (
  over: Partial<{ isError: boolean; isLoading: boolean; error: { message: string } | null }> = {},
) => ({
  isError: false,
  isLoading: false,
  error: null,
  refetch: vi.fn(),
  ...over,
});

describe("QueryTable", () => {
  it("shows what failed and why, and Retry reads the list again", async () => {
    const q = query({ isError: true, error: { message: "Network error" } });
    render(
      <QueryTable
        query={q}
        failed="The payments could not be loaded."
        empty="No payments"
        columns={columns}
        dataSource={[]}
      />,
    );
    expect(screen.getByRole("alert")).toHaveTextContent("The payments could not be loaded.");
    expect(screen.getByRole("alert")).toHaveTextContent("Network error");
    expect(screen.queryByRole("table")).toBeNull();
    await userEvent.click(screen.getByText("Retry"));
    expect(q.refetch).toHaveBeenCalledOnce();
  });

  it("says the list is empty only once it has been read", () => {
    const { rerender } = render(
      <QueryTable
        query={query({ isLoading: true })}
        failed="x"
        empty="No payments"
        columns={columns}
        dataSource={[]}
      />,
    );
    expect(screen.queryByText("No payments")).toBeNull();
    expect(screen.queryByText("No data")).toBeNull();
    rerender(<QueryTable query={query()} failed="x" empty="No payments" columns={columns} dataSource={[]} />);
    expect(screen.getByText("No payments")).toBeInTheDocument();
  });

  it("shows the rows, and an empty state with its own action when given one", () => {
    const { rerender } = render(
      <QueryTable
        query={query()}
        failed="x"
        empty="No payments"
        columns={columns}
        dataSource={[{ key: 1, name: "Ann" }]}
      />,
    );
    expect(screen.getByRole("cell", { name: "Ann" })).toBeInTheDocument();
    rerender(
      <QueryTable
        query={query()}
        failed="x"
        empty={<button type="button">Add the first</button>}
        columns={columns}
        dataSource={[]}
      />,
    );
    expect(screen.getByRole("button", { name: "Add the first" })).toBeInTheDocument();
  });
});
