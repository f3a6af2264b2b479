import { fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AppLayout } from "../../src/components/layout/app-layout";
import { writeSidebarExpanded } from "../../src/lib/sidebar-cookie";
import { createTooltipTiming, TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS } from "../../src/lib/tooltip-timing";
import { renderPage } from "./support/render-page";

describe("tooltip timing (spec §9: delay 700 ms, skip delay 300 ms)", () => {
  it("opens after the delay, at once within the skip delay, after the delay again later", () => {
    vi.useFakeTimers();
    try {
      expect([TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS]).toEqual([700, 300]);
      const open: (string | null)[] = [];
      const t = createTooltipTiming<string>((k) => open.push(k));
      t.enter("a");
      vi.advanceTimersByTime(699);
      expect(open).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(open).toEqual(["a"]);
      // Moving straight to the next entry: it opens at once.
      t.leave("a");
      vi.advanceTimersByTime(299);
      t.enter("b");
      expect(open).toEqual(["a", null, "b"]);
      // After the skip delay the full delay applies again.
      t.leave("b");
      vi.advanceTimersByTime(300);
      t.enter("c");
      vi.advanceTimersByTime(600);
      expect(open).toEqual(["a", null, "b", null]);
      // Leaving before the delay never opens it.
      t.leave("c");
      vi.advanceTimersByTime(2000);
      expect(open).toEqual(["a", null, "b", null]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows the collapsed sider's tooltips after 700 ms, not at once", async () => {
    writeSidebarExpanded(false);
    renderPage(<AppLayout />, { outlet: <p>The page</p> });
    await screen.findByText("The page");
    const nav = within(screen.getByRole("navigation", { name: "Main" }));
    const item = await nav.findByRole("link", { name: "Workspaces" });
    fireEvent.mouseEnter(item);
    fireEvent.mouseOver(item);
    await new Promise((r) => setTimeout(r, 450));
    expect(screen.queryByRole("tooltip")).not.toBeInTheDocument();
    expect(await screen.findByRole("tooltip")).toHaveTextContent("Workspaces");
  });
});
