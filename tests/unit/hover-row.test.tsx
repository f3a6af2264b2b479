// A records row shows its details card when the pointer rests on it or the keyboard reaches it, and
// a row the pointer only crosses shows none; the card's popover mounts only then (hover-row.tsx).
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { HoverRow } from "../../src/pages/billing/hover-row";
import { renderPage } from "./support/render-page";
import { usageRecord } from "./support/usage-record";

const record = usageRecord();

function renderRow() {
  renderPage(
    <table>
      <tbody>
        <HoverRow record={record}>
          <td>Jailbreak Sweep</td>
        </HoverRow>
      </tbody>
    </table>,
    { route: "/" },
  );
  return screen.getByRole("row", { name: "Usage event Jailbreak Sweep" });
}

const card = () => document.querySelector(".ant-popover:not(.ant-popover-hidden)");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("records row details card", () => {
  it("opens once the pointer rests on the row and closes when it leaves", async () => {
    const row = renderRow();
    expect(card()).toBeNull();
    fireEvent.mouseEnter(row);
    expect(await screen.findByText("Usage Event Details")).toBeVisible();
    fireEvent.mouseLeave(screen.getByRole("row", { name: "Usage event Jailbreak Sweep" }));
    await waitFor(() => expect(card()).toBeNull());
    // And again, now that its popover is mounted.
    fireEvent.mouseEnter(screen.getByRole("row", { name: "Usage event Jailbreak Sweep" }));
    await waitFor(() => expect(card()).not.toBeNull());
  });

  it("shows nothing for a row the pointer only crosses", async () => {
    const row = renderRow();
    fireEvent.mouseEnter(row);
    await pause(100);
    fireEvent.mouseLeave(row);
    await pause(500);
    expect(screen.queryByText("Usage Event Details")).toBeNull();
  });

  it("opens at once on keyboard focus, and the row keeps the focus", async () => {
    const row = renderRow();
    row.focus();
    expect(await screen.findByText("Usage Event Details")).toBeVisible();
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole("row", { name: "Usage event Jailbreak Sweep" })),
    );
  });
});
