import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { RefetchButton } from "../../src/components/refetch-button";

describe("Refresh button", () => {
  it("fetches the list again on click and spins while it is fetching", async () => {
    const refetch = vi.fn();
    const { rerender } = render(<RefetchButton query={{ refetch, isFetching: false }} />);
    const button = screen.getByRole("button", { name: /Refresh/ });
    expect(button).not.toHaveClass("ant-btn-loading");
    await userEvent.click(button);
    expect(refetch).toHaveBeenCalledTimes(1);

    rerender(<RefetchButton query={{ refetch, isFetching: true }} />);
    expect(screen.getByRole("button", { name: /Refresh/ })).toHaveClass("ant-btn-loading");
  });
});
