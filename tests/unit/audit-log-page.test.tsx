import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../contract/audit-log-schema";
import { actionLabel, auditQuery, changeSummary, nextDay } from "../../src/lib/audit-log";
import { AuditLogPage } from "../../src/pages/audit-log/audit-log-page";
import { auditLog as resource } from "../../src/resources/audit-log";
import { api, renderPage, server } from "./support/render-page";

const entry = (i: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  audit_entry_id: String(100 - i),
  at: `2026-11-2${i % 3}T10:00:0${i % 10}.000Z`,
  action: "workspace.created",
  actor_user_id: "u-admin",
  actor_email: "admin@acme.test",
  impersonator_user_id: null,
  source: "console",
  target_type: "workspace",
  target_id: `ws-${i}`,
  target_label: `Workspace ${i}`,
  before: null,
  after: { name: `Workspace ${i}` },
  ...over,
});

const ENTRIES: AuditEntry[] = [
  entry(0, {
    action: "org_user.role_changed",
    target_type: "org_user",
    target_id: "u-member",
    target_label: "member@acme.test",
    before: { role: "Member", additional_roles: [] },
    after: { role: "Admin", additional_roles: [] },
    impersonator_user_id: "u-operator",
  }),
  entry(1, { source: "api_key" }),
  ...Array.from({ length: 28 }, (_, i) => entry(i + 2)),
];

/** The requests the product API received for the audit log, as their query parameters. */
function recordQueries() {
  const seen: URLSearchParams[] = [];
  server.events.on("request:start", ({ request }) => {
    const url = new URL(request.url);
    if (url.pathname === "/v1/audit-log") seen.push(url.searchParams);
  });
  return seen;
}

const listAnswer = http.get(api("/v1/audit-log"), ({ request }) => {
  const url = new URL(request.url);
  if (url.searchParams.get("format") === "csv")
    return new HttpResponse("Time,Action\r\n2026-11-20T10:00:00.000Z,workspace.created\r\n", {
      headers: { "content-type": "text/csv" },
    });
  const actions = url.searchParams.getAll("action");
  const matching = actions.length ? ENTRIES.filter((e) => actions.includes(e.action)) : ENTRIES;
  const page = Number(url.searchParams.get("page") ?? 1);
  const size = Number(url.searchParams.get("page_size") ?? 50);
  return HttpResponse.json({
    entries: matching.slice((page - 1) * size, page * size),
    total: matching.length,
    page,
    page_size: size,
  });
});

const route = resource.list as string;

describe("Audit Log page", () => {
  it("lists entries newest first with action, actor, source, impersonator, target and change", async () => {
    const seen = recordQueries();
    renderPage(<AuditLogPage />, { route, handlers: [listAnswer] });
    expect(await screen.findByRole("heading", { name: "Audit Log" })).toBeInTheDocument();
    const first = (await screen.findByText("member@acme.test")).closest("tr") as HTMLElement;
    expect(within(first).getByText("Organization user role changed")).toBeInTheDocument();
    expect(within(first).getByText("org_user.role_changed")).toBeInTheDocument();
    expect(within(first).getByText("admin@acme.test")).toBeInTheDocument();
    expect(within(first).getByText("Impersonated by u-operator")).toBeInTheDocument();
    expect(within(first).getByText("role: Member → Admin")).toBeInTheDocument();
    expect(within(first).getByText("2026-11-20 10:00:00 UTC")).toBeInTheDocument();
    const second = screen.getByText("Workspace 1").closest("tr") as HTMLElement;
    expect(within(second).getByText("API key")).toBeInTheDocument();
    expect(Object.fromEntries(seen[0]!)).toEqual({ page: "1", page_size: "25" });
    // Server-side paging: the second page is asked for, not sliced in the browser.
    await userEvent.click(screen.getByTitle("2"));
    await screen.findByText("Workspace 25");
    expect(seen.at(-1)?.get("page")).toBe("2");
  });

  it("writes its table's parameters into a bare address, replacing it", async () => {
    const bare = renderPage(<AuditLogPage />, { route, handlers: [listAnswer] });
    await screen.findByText("member@acme.test");
    await waitFor(() => expect(bare.location()).toContain("pageSize=25"));
    expect(bare.router.state.historyAction).toBe("REPLACE");
  });

  it("sends the filters and shows an empty result as such", async () => {
    const seen = recordQueries();
    renderPage(<AuditLogPage />, { route, handlers: [listAnswer] });
    await screen.findByText("member@acme.test");
    // The actor is its column's filter: typed in the column's dropdown, applied with Filter.
    await filterActor("admin@acme.test");
    await waitFor(() => expect(seen.at(-1)?.get("actor")).toBe("admin@acme.test"));
    // The form's filters join it; applying them keeps the column's.
    await userEvent.type(screen.getByLabelText("Target ID"), "ws-3{Enter}");
    await waitFor(() => expect(seen.at(-1)?.get("target_id")).toBe("ws-3"));
    expect(seen.at(-1)?.get("actor")).toBe("admin@acme.test");
    expect(seen.at(-1)?.get("page")).toBe("1");

    server.use(
      http.get(api("/v1/audit-log"), () =>
        HttpResponse.json({ entries: [], total: 0, page: 1, page_size: 25 }),
      ),
    );
    await filterActor("nobody@acme.test");
    expect(await screen.findByText("No audit log entries match these filters")).toBeInTheDocument();
  });

  it("shows the loading state, then an error it could not load", async () => {
    renderPage(<AuditLogPage />, {
      route,
      handlers: [
        http.get(api("/v1/audit-log"), async () => {
          await delay(300);
          return HttpResponse.json({ error: { code: "internal_error", message: "Boom." } }, { status: 500 });
        }),
      ],
    });
    await waitFor(() => expect(document.querySelector(".ant-spin-spinning")).not.toBeNull());
    expect(await screen.findByText("The audit log could not be loaded.")).toBeInTheDocument();
  });

  it("exports the filtered log as CSV", async () => {
    const seen = recordQueries();
    renderPage(<AuditLogPage />, { route, handlers: [listAnswer] });
    await screen.findByText("member@acme.test");
    URL.createObjectURL = () => "blob:audit";
    URL.revokeObjectURL = () => {};
    await userEvent.click(screen.getByRole("button", { name: /Export CSV/ }));
    await waitFor(() => expect(seen.some((q) => q.get("format") === "csv")).toBe(true));
  });
});

/** Opens the Actor column's filter, types `actor` in place of what it holds, and applies it. */
async function filterActor(actor: string) {
  await userEvent.click(within(screen.getByRole("columnheader", { name: /Actor/ })).getByRole("button"));
  const input = await screen.findByLabelText("Actor");
  await userEvent.clear(input);
  await userEvent.type(input, actor);
  await userEvent.click(screen.getByRole("button", { name: /Filter/ }));
}

describe("audit log helpers", () => {
  it("summarises a change and builds the query with an exclusive end day", () => {
    expect(changeSummary({ before: { name: "A" }, after: { name: "B" } })).toBe("name: A → B");
    expect(changeSummary({ before: null, after: { name: "A", role: "Member" } })).toBe(
      "name: A; role: Member",
    );
    expect(changeSummary({ before: { x: 1 }, after: { x: 1 } })).toBe("");
    expect(nextDay("2026-12-31")).toBe("2027-01-01");
    expect(actionLabel("api_key.created")).toBe("API key created");
    expect(actionLabel("workspace.current_selected")).toBe("Workspace current selected");
    expect(auditQuery({ actor: " a@b.test ", action: [], from: "2026-11-01", to: "2026-11-30" })).toEqual({
      actor: "a@b.test",
      starting_at: "2026-11-01",
      ending_at: "2026-12-01",
    });
  });
});
