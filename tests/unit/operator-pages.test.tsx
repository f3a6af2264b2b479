import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { AppLayout } from "../../src/components/layout/app-layout";
import type {
  IngestKey,
  OperatorBillingCycle,
  OperatorOrganization,
  Payment,
  PriceRule,
} from "../../src/lib/operator";
import { OperatorIngestKeysListPage } from "../../src/pages/operator/ingest-keys-list-page";
import { OperatorOrganizationShowPage } from "../../src/pages/operator/organization-show-page";
import { OperatorOrganizationsListPage } from "../../src/pages/operator/organizations-list-page";
import { OperatorPriceRulesListPage } from "../../src/pages/operator/price-rules-list-page";
import { operatorIngestKeys } from "../../src/resources/operator-ingest-keys";
import { operatorOrganizations } from "../../src/resources/operator-organizations";
import { operatorPriceRules } from "../../src/resources/operator-price-rules";
import { findDialog } from "./support/dialogs";
import { api, apiError, renderPage } from "./support/render-page";

const OPERATOR = { is_admin: false, is_operator: true, email: "ops@provider.test" };
const ACME = "0b5d7a3c-1111-4e2f-9a6b-0c1d2e3f4a5b";
const GLOBEX = "7e8f9a0b-2222-4c3d-8e4f-5a6b7c8d9e0f";
const OPEN = "c0000000-0000-4000-8000-000000000003";
const CLOSED = "c0000000-0000-4000-8000-000000000002";

const org = (over: Partial<OperatorOrganization> = {}): OperatorOrganization => ({
  organization_uuid: ACME,
  name: "Acme AI",
  slug: "acme-ai",
  created_at: "2026-09-01T08:00:00.000Z",
  member_count: 3,
  ...over,
});
const rule = (over: Partial<PriceRule> = {}): PriceRule => ({
  price_rule_uuid: "a0000000-0000-4000-8000-000000000001",
  organization_uuid: ACME,
  operation: "generation",
  eval_type: "jailbreak",
  modality: null,
  rule_metric: "eval",
  unit_price_usd: "0.08",
  valid_from: "2026-09-01T00:00:00.000Z",
  valid_to: null,
  status: "active",
  ...over,
});
const cycle = (over: Partial<OperatorBillingCycle> = {}): OperatorBillingCycle => ({
  billing_cycle_uuid: OPEN,
  start_date: "2026-11-01",
  end_date: null,
  status: "open",
  total_cost_usd: "0",
  balance_usd: "0",
  paid_usd: "0.00",
  amount_due_usd: "0",
  ...over,
});
const key = (over: Partial<IngestKey> = {}): IngestKey => ({
  ingest_key_uuid: "e0000000-0000-4000-8000-000000000001",
  name: "Safety eval service",
  organization_uuid: null,
  created_at: "2026-11-02T09:00:00.000Z",
  last_used_at: null,
  revoked_at: null,
  ...over,
});

/** The requests the product API received for a method and path: their query and body. */
function recorded(method: "get" | "post", path: string, answer: () => Response) {
  const calls: { query: URLSearchParams; body: unknown }[] = [];
  return {
    calls,
    handler: http[method](api(path), async ({ request }) => {
      const text = method === "post" ? await request.text() : "";
      calls.push({ query: new URL(request.url).searchParams, body: text ? JSON.parse(text) : null });
      return answer();
    }),
  };
}

const rowOf = (text: string) => screen.getByText(text).closest("tr") as HTMLElement;
/** An option of the open select list (not the value shown in a select), by its text. */
const option = async (title: string) =>
  (await screen.findAllByTitle(title)).find((e) =>
    e.classList.contains("ant-select-item-option"),
  ) as HTMLElement;
/** A card of the page, by its title. */
const card = (title: string) =>
  screen.getByText(title, { selector: ".ant-card-head-title" }).closest(".ant-card") as HTMLElement;

describe("operator sider", () => {
  const renderLayout = (me: Record<string, unknown>) =>
    renderPage(<AppLayout />, { route: "/account/settings", me, outlet: <p>The page</p> });
  const nav = () => within(screen.getByRole("navigation", { name: "Main" }));

  it("shows provider operators the Operator group after the organization's entries", async () => {
    renderLayout({ ...OPERATOR, is_admin: true });
    expect(await screen.findByText("The page")).toBeInTheDocument();
    // Each entry shows once its access answer arrives (Refine's CanAccess, one query per entry).
    const group = await nav().findByText("Operator");
    for (const [name, href] of [
      ["Organizations", "/operator/organizations"],
      ["Price Rules", "/operator/price-rules"],
      ["Ingestion Keys", "/operator/ingest-keys"],
      ["Jobs", "/operator/jobs"],
    ])
      expect(await nav().findByRole("link", { name })).toHaveAttribute("href", href);
    // The group comes after the organization's own entries.
    const settings = await nav().findByRole("link", { name: "Account Settings" });
    expect(settings.compareDocumentPosition(group) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("shows customers, administrators included, no operator entries", async () => {
    renderLayout({ is_admin: true, email: "admin@acme.test" });
    expect(await screen.findByText("The page")).toBeInTheDocument();
    expect(nav().getByText("Billing & Usage")).toBeInTheDocument();
    expect(nav().queryByText("Operator")).not.toBeInTheDocument();
    expect(nav().queryByText("Organizations")).not.toBeInTheDocument();
    expect(nav().queryByText("Price Rules")).not.toBeInTheDocument();
    expect(nav().queryByText("Ingestion Keys")).not.toBeInTheDocument();
  });
});

describe("Organizations page", () => {
  it("lists organizations a page at a time and searches them by name or slug", async () => {
    const list = recorded("get", "/v1/operator/organizations", () =>
      HttpResponse.json({
        organizations: [
          org(),
          org({ organization_uuid: GLOBEX, name: "Globex", slug: "globex", member_count: 41 }),
        ],
        total_count: 2,
      }),
    );
    renderPage(<OperatorOrganizationsListPage />, {
      route: operatorOrganizations.list as string,
      me: OPERATOR,
      handlers: [list.handler],
    });
    expect(await screen.findByRole("heading", { name: "Organizations" })).toBeInTheDocument();
    const acme = (await screen.findByText("Acme AI")).closest("tr") as HTMLElement;
    expect(within(acme).getByText("acme-ai")).toBeInTheDocument();
    expect(within(acme).getByText("3")).toBeInTheDocument();
    expect(within(acme).getByRole("link", { name: "Acme AI" })).toHaveAttribute(
      "href",
      `/operator/organizations/${ACME}`,
    );
    expect(within(rowOf("Globex")).getByText("41")).toBeInTheDocument();
    expect(screen.getByText("2 organizations")).toBeInTheDocument();
    expect(list.calls[0]?.query.get("page")).toBe("1");
    expect(list.calls[0]?.query.get("page_size")).toBe("20");
    expect(list.calls[0]?.query.has("search")).toBe(false);

    const user = userEvent.setup({ delay: null });
    await user.type(screen.getByLabelText("Search organizations"), "glob");
    await waitFor(() => expect(list.calls.at(-1)?.query.get("search")).toBe("glob"));
    expect(list.calls.at(-1)?.query.get("page")).toBe("1");
  });

  it("says when no organization matches the search", async () => {
    renderPage(<OperatorOrganizationsListPage />, {
      route: operatorOrganizations.list as string,
      me: OPERATOR,
      handlers: [
        http.get(api("/v1/operator/organizations"), ({ request }) =>
          HttpResponse.json({
            organizations: new URL(request.url).searchParams.has("search") ? [] : [org()],
            total_count: new URL(request.url).searchParams.has("search") ? 0 : 1,
          }),
        ),
      ],
    });
    await screen.findByText("Acme AI");
    const user = userEvent.setup({ delay: null });
    await user.type(screen.getByLabelText("Search organizations"), "nobody");
    expect(await screen.findByText('No organizations match "nobody"')).toBeInTheDocument();
  });

  it("shows the API's refusal instead of a table", async () => {
    renderPage(<OperatorOrganizationsListPage />, {
      route: operatorOrganizations.list as string,
      me: OPERATOR,
      handlers: [
        http.get(api("/v1/operator/organizations"), () =>
          apiError(
            403,
            "forbidden",
            "Only provider operators (with their own bearer token) can list organizations.",
          ),
        ),
      ],
    });
    expect(await screen.findByText("The organizations could not be loaded.")).toBeInTheDocument();
    expect(screen.getByText(/Only provider operators/)).toBeInTheDocument();
  });
});

describe("An organization's operator page", () => {
  const route = operatorOrganizations.show as string;
  const path = `/operator/organizations/${ACME}`;
  const base = (
    over: { cycles?: OperatorBillingCycle[]; payments?: Payment[]; rules?: PriceRule[] } = {},
  ) => [
    http.get(api(`/v1/operator/organizations/${ACME}`), () => HttpResponse.json(org())),
    http.get(api("/v1/operator/price-rules"), ({ request }) =>
      new URL(request.url).searchParams.get("organization_uuid") === ACME
        ? HttpResponse.json({
            price_rules: over.rules ?? [
              rule({
                price_rule_uuid: "a0000000-0000-4000-8000-000000000003",
                unit_price_usd: "0.0125",
                valid_from: "2026-12-01T00:00:00.000Z",
                status: "scheduled",
              }),
              rule({
                price_rule_uuid: "a0000000-0000-4000-8000-000000000002",
                valid_to: "2026-12-01T00:00:00.000Z",
              }),
              rule({
                valid_from: "2026-08-01T00:00:00.000Z",
                valid_to: "2026-09-01T00:00:00.000Z",
                unit_price_usd: "0.05",
                status: "ended",
              }),
            ],
          })
        : apiError(400, "invalid_request", "unexpected filter"),
    ),
    http.get(api(`/v1/operator/organizations/${ACME}/billing-cycles`), () =>
      HttpResponse.json({
        billing_cycles: over.cycles ?? [
          cycle({
            total_cost_usd: "1165.141",
            balance_usd: "915.141",
            paid_usd: "250.00",
            amount_due_usd: "665.141",
          }),
          cycle({
            billing_cycle_uuid: CLOSED,
            start_date: "2026-10-01",
            end_date: "2026-11-01",
            status: "closed",
            total_cost_usd: "1500",
            balance_usd: "1234.5",
            paid_usd: "1000",
            amount_due_usd: "234.5",
          }),
        ],
      }),
    ),
    http.get(api(`/v1/operator/organizations/${ACME}/payments`), () =>
      HttpResponse.json({
        payments: over.payments ?? [
          {
            payment_uuid: "d0000000-0000-4000-8000-000000000002",
            billing_cycle_uuid: OPEN,
            amount_usd: "250.00",
            note: "Wire 42",
            created_at: "2026-11-03T10:00:00.000Z",
          },
          {
            payment_uuid: "d0000000-0000-4000-8000-000000000001",
            billing_cycle_uuid: CLOSED,
            amount_usd: "-20.00",
            note: null,
            created_at: "2026-10-20T10:00:00.000Z",
          },
        ],
      }),
    ),
  ];

  it("shows the organization, its own price rules with their history, its cycles and its payments", async () => {
    renderPage(<OperatorOrganizationShowPage />, { route, path, me: OPERATOR, handlers: base() });
    expect(await screen.findByRole("heading", { name: "Acme AI" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Organizations/ })).toHaveAttribute(
      "href",
      "/operator/organizations",
    );
    expect(screen.getByText(ACME)).toBeInTheDocument();

    const scheduled = (await screen.findByText("$0.0125")).closest("tr") as HTMLElement;
    expect(within(scheduled).getByText("Scheduled")).toBeInTheDocument();
    expect(within(scheduled).getByText("Dec 1, 2026 00:00")).toBeInTheDocument();
    expect(within(scheduled).getByText("Open")).toBeInTheDocument();
    expect(within(scheduled).getByText("Jailbreak")).toBeInTheDocument();
    expect(within(scheduled).getByText("Per eval")).toBeInTheDocument();
    expect(within(scheduled).getByText("Any")).toBeInTheDocument();
    expect(within(rowOf("$0.08")).getByText("Active")).toBeInTheDocument();
    expect(within(rowOf("$0.05")).getByText("Ended")).toBeInTheDocument();

    const cycles = within(card("Billing cycles"));
    const open = (await cycles.findByText("Nov 1, 2026 - Present")).closest("tr") as HTMLElement;
    expect(within(open).getByText("Open")).toBeInTheDocument();
    // Total cost, balance, paid and amount due, as the customer's totals strip formats them.
    const figures = (row: HTMLElement) =>
      within(row)
        .getAllByRole("cell")
        .slice(2)
        .map((c) => c.textContent);
    expect(figures(open)).toEqual(["$1,165.14", "$915.14", "$250.00", "$665.14"]);
    const closed = cycles.getByText("Oct 1, 2026 - Nov 1, 2026").closest("tr") as HTMLElement;
    expect(within(closed).getByText("Closed")).toBeInTheDocument();
    expect(figures(closed)).toEqual(["$1,500.00", "$1,234.50", "$1,000.00", "$234.50"]);
    for (const title of ["Total cost", "Balance", "Paid", "Amount due"])
      expect(cycles.getByRole("columnheader", { name: title })).toBeInTheDocument();

    const wire = (await screen.findByText("Wire 42")).closest("tr") as HTMLElement;
    expect(within(wire).getByText("$250.00")).toBeInTheDocument();
    expect(await within(wire).findByText("Nov 1, 2026 - Present")).toBeInTheDocument();
    const refund = within(card("Payments")).getByText("-$20.00").closest("tr") as HTMLElement;
    expect(within(refund).getByText("Refund")).toBeInTheDocument();
    expect(within(refund).getByText("Oct 1, 2026 - Nov 1, 2026")).toBeInTheDocument();
    // A cycle is open: only closing it is offered.
    expect(screen.getByRole("button", { name: "Open a cycle" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Close the open cycle" })).toBeEnabled();
  });

  it("says so when the organization, its rules, cycles or payments are none", async () => {
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: base({ cycles: [], payments: [], rules: [] }),
    });
    expect(
      await screen.findByText("No price rules of its own: the global price list applies"),
    ).toBeInTheDocument();
    expect(await screen.findByText("No billing cycles yet")).toBeInTheDocument();
    expect(await screen.findByText("No payments recorded")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Open a cycle" })).toBeEnabled();
    expect(screen.getByRole("button", { name: "Close the open cycle" })).toBeDisabled();
  });

  it("says when there is no such organization", async () => {
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: [
        http.get(api(`/v1/operator/organizations/${ACME}`), () =>
          apiError(404, "not_found", "Organization not found."),
        ),
      ],
    });
    expect(await screen.findByText("Organization not found")).toBeInTheDocument();
  });

  it("closes the open cycle and opens the next one, from the dialog", async () => {
    const user = userEvent.setup({ delay: null });
    const close = recorded("post", `/v1/operator/organizations/${ACME}/billing-cycles/close`, () =>
      HttpResponse.json({
        closed: cycle({ end_date: "2026-12-01", status: "closed" }),
        opened: cycle({
          billing_cycle_uuid: "c0000000-0000-4000-8000-000000000004",
          start_date: "2026-12-01",
        }),
      }),
    );
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: [close.handler, ...base()],
    });
    await screen.findByRole("heading", { name: "Acme AI" });
    await within(card("Billing cycles")).findByText("Nov 1, 2026 - Present");
    await user.click(screen.getByRole("button", { name: "Close the open cycle" }));
    const dialog = await findDialog("Close the open billing cycle");
    expect(
      within(dialog).getByRole("checkbox", { name: "Open the next cycle from the end date" }),
    ).toBeChecked();
    await user.click(within(dialog).getByRole("button", { name: "Close cycle" }));
    await waitFor(() => expect(close.calls).toHaveLength(1));
    expect(close.calls[0]?.body).toEqual({ open_next: true });
    expect(
      await screen.findByText("Billing cycle closed on Dec 1, 2026; the next one is open"),
    ).toBeInTheDocument();
  });

  it("shows the API's refusal to open a cycle in the dialog, which keeps the input", async () => {
    const user = userEvent.setup({ delay: null });
    const opened = recorded("post", `/v1/operator/organizations/${ACME}/billing-cycles`, () =>
      apiError(409, "conflict", "A cycle cannot start before the last one ends (2026-11-01)."),
    );
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: [
        opened.handler,
        ...base({ cycles: [cycle({ end_date: "2026-11-01", status: "closed", start_date: "2026-10-01" })] }),
      ],
    });
    const button = await screen.findByRole("button", { name: "Open a cycle" });
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    const dialog = await findDialog("Open a billing cycle");
    const start = within(dialog).getByLabelText("Start date (UTC)");
    await user.type(start, "2026-10-15{Enter}");
    await user.click(within(dialog).getByRole("button", { name: "Open cycle" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent(
      "A cycle cannot start before the last one ends (2026-11-01).",
    );
    expect(opened.calls[0]?.body).toEqual({ start_date: "2026-10-15" });
    expect(within(dialog).getByLabelText("Start date (UTC)")).toHaveValue("2026-10-15");
  });

  it("records a payment on the open cycle and reads the cycles' paid amounts again", async () => {
    const user = userEvent.setup({ delay: null });
    let cycleReads = 0;
    const pay = recorded("post", `/v1/operator/organizations/${ACME}/payments`, () =>
      HttpResponse.json(
        {
          payment_uuid: "d0000000-0000-4000-8000-000000000009",
          billing_cycle_uuid: OPEN,
          amount_usd: "100.00",
          note: "Card",
          created_at: "2026-11-20T10:00:00.000Z",
        },
        { status: 201 },
      ),
    );
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: [
        pay.handler,
        http.get(api(`/v1/operator/organizations/${ACME}/billing-cycles`), () => {
          cycleReads++;
          return HttpResponse.json({ billing_cycles: [cycle()] });
        }),
        ...base(),
      ],
    });
    await screen.findByText("Wire 42");
    const record = screen.getByRole("button", { name: "Record payment" });
    await waitFor(() => expect(record).toBeEnabled());
    const before = cycleReads;
    await user.click(record);
    const dialog = await findDialog("Record a payment");
    await user.type(within(dialog).getByLabelText("Amount (USD)"), "100.00");
    await user.type(within(dialog).getByLabelText("Note"), " Card ");
    await user.click(within(dialog).getByRole("button", { name: "Record payment" }));
    await waitFor(() => expect(pay.calls).toHaveLength(1));
    expect(pay.calls[0]?.body).toEqual({ amount_usd: "100.00", billing_cycle_uuid: OPEN, note: "Card" });
    expect(await screen.findByText("Payment of $100.00 recorded")).toBeInTheDocument();
    await waitFor(() => expect(cycleReads).toBeGreaterThan(before));
  });

  it("fills in the amount due on the cycle chosen in Record payment", async () => {
    const user = userEvent.setup({ delay: null });
    const pay = recorded("post", `/v1/operator/organizations/${ACME}/payments`, () =>
      HttpResponse.json(
        {
          payment_uuid: "d0000000-0000-4000-8000-000000000009",
          billing_cycle_uuid: CLOSED,
          amount_usd: "234.5",
          note: null,
          created_at: "2026-11-20T10:00:00.000Z",
        },
        { status: 201 },
      ),
    );
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: [pay.handler, ...base()],
    });
    await screen.findByText("Wire 42");
    const record = screen.getByRole("button", { name: "Record payment" });
    await waitFor(() => expect(record).toBeEnabled());
    await user.click(record);
    const dialog = await findDialog("Record a payment");
    const amount = within(dialog).getByLabelText("Amount (USD)");
    expect(amount).toHaveValue("665.141");
    await user.click(within(dialog).getByLabelText("Billing cycle"));
    await user.click(await screen.findByText("Oct 1, 2026 - Nov 1, 2026 · $234.50 due"));
    expect(amount).toHaveValue("234.5");
    await user.click(within(dialog).getByRole("button", { name: "Record payment" }));
    await waitFor(() => expect(pay.calls).toHaveLength(1));
    expect(pay.calls[0]?.body).toEqual({ amount_usd: "234.5", billing_cycle_uuid: CLOSED });
  });

  it("checks the amount before sending it", async () => {
    const user = userEvent.setup({ delay: null });
    const pay = recorded("post", `/v1/operator/organizations/${ACME}/payments`, () => HttpResponse.json({}));
    renderPage(<OperatorOrganizationShowPage />, {
      route,
      path,
      me: OPERATOR,
      handlers: [pay.handler, ...base()],
    });
    await screen.findByText("Wire 42");
    const record = screen.getByRole("button", { name: "Record payment" });
    await waitFor(() => expect(record).toBeEnabled());
    await user.click(record);
    const dialog = await findDialog("Record a payment");
    await user.type(within(dialog).getByLabelText("Amount (USD)"), "12.3456789");
    await user.click(within(dialog).getByRole("button", { name: "Record payment" }));
    expect(await within(dialog).findByText(/Enter a USD amount such as "1250.00"/)).toBeInTheDocument();
    expect(pay.calls).toHaveLength(0);
  });
});

describe("Price Rules page", () => {
  const route = operatorPriceRules.list as string;
  const rules = [
    rule({
      price_rule_uuid: "a0000000-0000-4000-8000-000000000010",
      organization_uuid: null,
      operation: null,
      eval_type: null,
      rule_metric: null,
      unit_price_usd: "0.01",
    }),
    rule(),
    rule({
      price_rule_uuid: "a0000000-0000-4000-8000-000000000011",
      organization_uuid: GLOBEX,
      eval_type: "hallucination",
      modality: "image",
      rule_metric: "prompt",
      unit_price_usd: "0.002",
      status: "ended",
      valid_to: "2026-10-01T00:00:00.000Z",
    }),
  ];
  const organizations = [
    http.get(api(`/v1/operator/organizations/${ACME}`), () => HttpResponse.json(org())),
    http.get(api(`/v1/operator/organizations/${GLOBEX}`), () =>
      HttpResponse.json(org({ organization_uuid: GLOBEX, name: "Globex", slug: "globex" })),
    ),
    http.get(api("/v1/operator/organizations"), () =>
      HttpResponse.json({
        organizations: [org(), org({ organization_uuid: GLOBEX, name: "Globex", slug: "globex" })],
        total_count: 2,
      }),
    ),
  ];

  it("lists every rule with its price list, and narrows them to the global list", async () => {
    const list = recorded("get", "/v1/operator/price-rules", () => HttpResponse.json({ price_rules: rules }));
    renderPage(<OperatorPriceRulesListPage />, {
      route,
      me: OPERATOR,
      handlers: [list.handler, ...organizations],
    });
    expect(await screen.findByRole("heading", { name: "Price Rules" })).toBeInTheDocument();
    const global = (await screen.findByText("$0.01")).closest("tr") as HTMLElement;
    expect(within(global).getByText("Global")).toBeInTheDocument();
    expect(within(global).getAllByText("Any")).toHaveLength(4);
    const acme = rowOf("$0.08");
    expect(await within(acme).findByRole("link", { name: "Acme AI" })).toHaveAttribute(
      "href",
      `/operator/organizations/${ACME}`,
    );
    const globex = rowOf("$0.002");
    expect(await within(globex).findByRole("link", { name: "Globex" })).toBeInTheDocument();
    expect(within(globex).getByText("Accuracy")).toBeInTheDocument();
    expect(within(globex).getByText("hallucination")).toBeInTheDocument();
    expect(within(globex).getByText("image")).toBeInTheDocument();
    expect(within(globex).getByText("Per prompt")).toBeInTheDocument();
    expect(within(globex).getByText("Ended")).toBeInTheDocument();
    expect(within(globex).getByText("Oct 1, 2026 00:00")).toBeInTheDocument();
    expect(list.calls[0]?.query.has("organization_uuid")).toBe(false);

    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole("combobox", { name: "Price list" }));
    await user.click(await option("Global (every organization)"));
    await waitFor(() => expect(list.calls.at(-1)?.query.get("organization_uuid")).toBe("global"));
  });

  it("sets a global price from a time in the past, and shows the new rule", async () => {
    const user = userEvent.setup({ delay: null });
    let answered = rules;
    const created = rule({
      price_rule_uuid: "a0000000-0000-4000-8000-000000000020",
      organization_uuid: null,
      operation: "scoring",
      eval_type: "safety",
      modality: null,
      rule_metric: "eval",
      unit_price_usd: "0.0375",
      valid_from: "2026-10-15T08:30:00.000Z",
    });
    const create = recorded("post", "/v1/operator/price-rules", () => {
      answered = [created, ...rules];
      return HttpResponse.json(created, { status: 201 });
    });
    renderPage(<OperatorPriceRulesListPage />, {
      route,
      me: OPERATOR,
      handlers: [
        create.handler,
        http.get(api("/v1/operator/price-rules"), () => HttpResponse.json({ price_rules: answered })),
        ...organizations,
      ],
    });
    await screen.findByText("$0.01");
    await user.click(screen.getByRole("button", { name: /Set price/ }));
    const dialog = await findDialog("Set price");
    await user.type(within(dialog).getByLabelText("Operation"), "scoring");
    await user.type(within(dialog).getByLabelText("Eval type"), "safety");
    await user.click(within(dialog).getByLabelText("Rule metric"));
    await user.click(await option("Per eval"));
    await user.type(within(dialog).getByLabelText("Unit price (USD)"), "0.0375");
    await user.type(within(dialog).getByLabelText("Valid from (UTC)"), "2026-10-15 08:30{Enter}");
    await user.click(within(dialog).getByRole("button", { name: "Set price" }));
    await waitFor(() => expect(create.calls).toHaveLength(1));
    expect(create.calls[0]?.body).toEqual({
      organization_uuid: null,
      operation: "scoring",
      eval_type: "safety",
      rule_metric: "eval",
      unit_price_usd: "0.0375",
      valid_from: "2026-10-15T08:30:00.000Z",
    });
    expect(await screen.findByText("Price set")).toBeInTheDocument();
    expect(await screen.findByText("$0.0375")).toBeInTheDocument();
  });

  it("warns, after setting a price, which rules outrank it and for how many events", async () => {
    const user = userEvent.setup({ delay: null });
    const created = rule({
      price_rule_uuid: "a0000000-0000-4000-8000-000000000021",
      operation: null,
      eval_type: "safety",
      rule_metric: "eval",
      unit_price_usd: "0.007",
    });
    const winner = "a0000000-0000-4000-8000-000000000022";
    const create = recorded("post", "/v1/operator/price-rules", () =>
      HttpResponse.json(
        {
          ...created,
          rerating: {
            organizations: 0,
            events: 0,
            before_total: "0.00",
            after_total: "0.00",
            corrections: [],
          },
          shadowed_by: [
            {
              price_rule_uuid: winner,
              organization_uuid: ACME,
              operation: "generation",
              eval_type: "safety",
              modality: null,
              rule_metric: null,
              unit_price_usd: "0.005",
              version: 1,
              events: 1204,
              reason: "dimension_order",
            },
          ],
        },
        { status: 201 },
      ),
    );
    renderPage(<OperatorPriceRulesListPage />, {
      route,
      me: OPERATOR,
      handlers: [
        create.handler,
        http.get(api("/v1/operator/price-rules"), () => HttpResponse.json({ price_rules: rules })),
        ...organizations,
      ],
    });
    await screen.findByText("$0.01");
    await user.click(screen.getByRole("button", { name: /Set price/ }));
    const dialog = await findDialog("Set price");
    await user.type(within(dialog).getByLabelText("Eval type"), "safety");
    await user.type(within(dialog).getByLabelText("Unit price (USD)"), "0.007");
    await user.click(within(dialog).getByRole("button", { name: "Set price" }));
    await waitFor(() => expect(create.calls).toHaveLength(1));
    expect(
      await screen.findByText("Price set, but other rules price some of its events"),
    ).toBeInTheDocument();
    expect(screen.getByTestId("price-shadows")).toHaveTextContent(
      `1,204 events of the open cycle that this price fits are priced by rule ${winner} (eval_type=safety operation=generation, organization ${ACME}, $0.005): it names as many dimensions, one of them earlier in the order eval_type, operation, modality, rule_metric.`,
    );
    expect(screen.queryByText("Price set")).toBeNull();
  });

  it("shows the API's refusal in the dialog and checks the price before sending it", async () => {
    const user = userEvent.setup({ delay: null });
    const create = recorded("post", "/v1/operator/price-rules", () =>
      apiError(400, "invalid_request", "valid_from must be from 2000-01-01 to 2100-01-01 (UTC)."),
    );
    renderPage(<OperatorPriceRulesListPage />, {
      route,
      me: OPERATOR,
      handlers: [
        create.handler,
        http.get(api("/v1/operator/price-rules"), () => HttpResponse.json({ price_rules: [] })),
        ...organizations,
      ],
    });
    expect(await screen.findByText("No price rules yet")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: /Set price/ }));
    const dialog = await findDialog("Set price");
    const price = within(dialog).getByLabelText("Unit price (USD)");
    await user.type(price, "-1");
    await user.click(within(dialog).getByRole("button", { name: "Set price" }));
    expect(await within(dialog).findByText(/Enter a USD amount such as "0.0125"/)).toBeInTheDocument();
    expect(create.calls).toHaveLength(0);
    await user.clear(price);
    await user.type(price, "1");
    await user.type(within(dialog).getByLabelText("Valid from (UTC)"), "1999-12-31 00:00{Enter}");
    await user.click(within(dialog).getByRole("button", { name: "Set price" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent(
      "valid_from must be from 2000-01-01 to 2100-01-01 (UTC).",
    );
    expect(create.calls).toHaveLength(1);
  });
});

describe("Ingestion Keys page", () => {
  const route = operatorIngestKeys.list as string;

  it("lists the keys, revoked ones too, with what they send for", async () => {
    renderPage(<OperatorIngestKeysListPage />, {
      route,
      me: OPERATOR,
      handlers: [
        http.get(api("/v1/operator/ingest-keys"), () =>
          HttpResponse.json([
            key(),
            key({
              ingest_key_uuid: "e0000000-0000-4000-8000-000000000002",
              name: "Acme importer",
              organization_uuid: ACME,
              last_used_at: "2026-11-20T12:00:00.000Z",
            }),
            key({
              ingest_key_uuid: "e0000000-0000-4000-8000-000000000003",
              name: "Old key",
              revoked_at: "2026-11-10T00:00:00.000Z",
            }),
          ]),
        ),
        http.get(api(`/v1/operator/organizations/${ACME}`), () => HttpResponse.json(org())),
      ],
    });
    expect(await screen.findByRole("heading", { name: "Ingestion Keys" })).toBeInTheDocument();
    const all = (await screen.findByText("Safety eval service")).closest("tr") as HTMLElement;
    expect(within(all).getByText("Every organization")).toBeInTheDocument();
    expect(within(all).getByText("Never")).toBeInTheDocument();
    expect(within(all).getByText("Active")).toBeInTheDocument();
    expect(
      await within(all).findByRole("button", { name: /Revoke ingestion key Safety eval service/ }),
    ).toBeInTheDocument();
    const acme = rowOf("Acme importer");
    expect(await within(acme).findByRole("link", { name: "Acme AI" })).toBeInTheDocument();
    expect(within(acme).getByText("Nov 20, 2026, 12:00 UTC")).toBeInTheDocument();
    const old = rowOf("Old key");
    expect(within(old).getByText("Revoked")).toBeInTheDocument();
    expect(within(old).queryByRole("button")).not.toBeInTheDocument();
  });

  it("creates a key for one organization and shows its token once", async () => {
    const user = userEvent.setup({ delay: null });
    const create = recorded("post", "/v1/operator/ingest-keys", () =>
      HttpResponse.json({
        ...key({ name: "Acme importer", organization_uuid: ACME }),
        token: "eci_secret_token_123",
      }),
    );
    renderPage(<OperatorIngestKeysListPage />, {
      route,
      me: OPERATOR,
      handlers: [
        create.handler,
        http.get(api("/v1/operator/ingest-keys"), () => HttpResponse.json([])),
        http.get(api("/v1/operator/organizations"), () =>
          HttpResponse.json({ organizations: [org()], total_count: 1 }),
        ),
      ],
    });
    expect(await screen.findByText("No ingestion keys yet")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: /Create ingestion key/ }));
    const dialog = await findDialog("Create ingestion key");
    await user.type(within(dialog).getByLabelText("Name"), "Acme importer");
    await user.click(within(dialog).getByLabelText("Sends for"));
    await user.click(await option("Acme AI"));
    await user.click(within(dialog).getByRole("button", { name: "Create" }));
    await waitFor(() => expect(create.calls).toHaveLength(1));
    expect(create.calls[0]?.body).toEqual({ name: "Acme importer", organization: ACME });
    const shown = await findDialog("Your new ingestion key");
    expect(within(shown).getByLabelText("Token")).toHaveValue("eci_secret_token_123");
    expect(within(shown).getByRole("button", { name: "Copy ingestion key" })).toBeInTheDocument();
    expect(within(shown).getByText("Shown only once")).toBeInTheDocument();
    await user.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByDisplayValue("eci_secret_token_123")).not.toBeInTheDocument());
  });

  it("revokes a key after a confirmation, and shows a refusal in the dialog", async () => {
    const user = userEvent.setup({ delay: null });
    let refuse = true;
    const revoke = recorded("post", `/v1/operator/ingest-keys/${key().ingest_key_uuid}/revoke`, () =>
      refuse
        ? apiError(409, "already_revoked", "The ingestion key is already revoked.")
        : HttpResponse.json(key({ revoked_at: "2026-11-21T00:00:00.000Z" })),
    );
    renderPage(<OperatorIngestKeysListPage />, {
      route,
      me: OPERATOR,
      handlers: [revoke.handler, http.get(api("/v1/operator/ingest-keys"), () => HttpResponse.json([key()]))],
    });
    await user.click(await screen.findByRole("button", { name: /Revoke ingestion key Safety eval service/ }));
    const dialog = await findDialog("Revoke ingestion key");
    expect(revoke.calls).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Revoke" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent(
      "The ingestion key is already revoked.",
    );
    refuse = false;
    await user.click(within(dialog).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(revoke.calls).toHaveLength(2));
    expect(await screen.findByText('Ingestion key "Safety eval service" revoked')).toBeInTheDocument();
  });
});
