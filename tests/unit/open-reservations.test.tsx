// "Open Reservations" beside the budgets on a mocked product API: every run holding an estimate,
// who started it, what it holds and until when; its empty state; and Release only after a
// confirmation, which asks the API to release that run and reads the list again.
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { OpenReservation } from "../../contract/reservations";
import { BudgetsSection } from "../../src/components/budgets/budgets-section";
import { budget, budgetsApi } from "./support/budgets-api";
import { api, apiError, renderPage } from "./support/render-page";

const admin = { is_admin: true };

const held: OpenReservation = {
  eval_run_uuid: "rrrrrrrr-0000-4000-8000-000000000001",
  workspace_uuid: "aaaaaaaa-0000-4000-8000-000000000001",
  workspace_name: "Alpha",
  eval_name: "Nightly jailbreak sweep",
  started_by: "member@acme.test",
  started_at: "2026-11-20T10:00:00.000Z",
  estimate: "900.00",
  used: "12.50",
  held: "887.50",
  expires_at: "2026-11-20T11:04:00.000Z",
};

function reservationsApi(initial: OpenReservation[]) {
  let rows = [...initial];
  const released: string[] = [];
  const handlers = [
    http.get(api("/v1/budgets/reservations"), () =>
      HttpResponse.json({ reservations: rows, total: rows.length, held: "0.00" }),
    ),
    http.post(api("/v1/budgets/reservations/:id/release"), ({ params }) => {
      const id = String(params.id);
      if (!rows.some((r) => r.eval_run_uuid === id))
        return apiError(409, "conflict", "The run's reservation is already released (finished).");
      released.push(id);
      rows = rows.filter((r) => r.eval_run_uuid !== id);
      return HttpResponse.json({ eval_run_uuid: id, released: "887.50", reservation: {} });
    }),
  ];
  return { handlers, released };
}

const table = async () => within(await screen.findByTestId("open-reservations"));

describe("Open Reservations", () => {
  it("lists each held run with who started it, what it holds and until when", async () => {
    const reservations = reservationsApi([held]);
    renderPage(<BudgetsSection />, {
      me: admin,
      handlers: [...reservations.handlers, ...budgetsApi([budget({ hard_limit: true })]).handlers],
    });
    const t = await table();
    expect(await t.findByText("Nightly jailbreak sweep")).toBeInTheDocument();
    expect(t.getByText("member@acme.test")).toBeInTheDocument();
    expect(t.getByText("Alpha")).toBeInTheDocument();
    expect(t.getByText("$887.50")).toBeInTheDocument();
    expect(t.getByText("2026-11-20 11:04:00 UTC")).toBeInTheDocument();
  });

  it("says when no run holds a reservation", async () => {
    renderPage(<BudgetsSection />, { me: admin, handlers: reservationsApi([]).handlers });
    expect(await (await table()).findByText("No eval run holds a reservation.")).toBeInTheDocument();
  });

  it("releases a run's reservation only after confirmation", async () => {
    const user = userEvent.setup({ delay: null });
    const reservations = reservationsApi([held]);
    renderPage(<BudgetsSection />, { me: admin, handlers: reservations.handlers });
    const t = await table();
    await user.click(
      await t.findByRole("button", { name: "Release the reservation of Nightly jailbreak sweep" }),
    );
    expect(
      await screen.findByText("Release the $887.50 held by Nightly jailbreak sweep?"),
    ).toBeInTheDocument();
    expect(reservations.released).toEqual([]);
    await user.click(screen.getByRole("button", { name: "Release" }));
    await waitFor(() => expect(reservations.released).toEqual([held.eval_run_uuid]));
    expect(await t.findByText("No eval run holds a reservation.")).toBeInTheDocument();
  });
});
