import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { WebhookDelivery, WebhookEndpoint } from "../../contract/webhooks";
import { WebhookShowPage } from "../../src/pages/webhooks/webhook-show-page";
import { WebhooksListPage } from "../../src/pages/webhooks/webhooks-list-page";
import { webhookEndpoints as resource } from "../../src/resources/webhook-endpoints";
import { findDialog } from "./support/dialogs";
import { api, apiError, renderPage } from "./support/render-page";

const ADMIN = { is_admin: true, email: "admin@acme.test" };
const ID = "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  endpoint_uuid: ID,
  url: "https://hooks.example.com/eval",
  description: "Ops pager",
  events: ["budget.alert.triggered", "budget.alert.resolved"],
  enabled: true,
  breaker: { state: "closed", consecutive_failures: 0, paused_until: null },
  created_at: "2026-11-20T10:00:00.000Z",
  updated_at: "2026-11-20T10:00:00.000Z",
  ...over,
});
const delivery = (i: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  delivery_uuid: `0000000${i}-0000-4000-8000-000000000000`,
  endpoint_uuid: ID,
  event_id: `1111111${i}-0000-4000-8000-000000000000`,
  event_type: "budget.alert.triggered",
  status: "succeeded",
  attempts: 1,
  last_status_code: 200,
  last_error: null,
  next_attempt_at: null,
  last_attempt_at: "2026-11-20T10:00:01.000Z",
  created_at: "2026-11-20T10:00:00.000Z",
  delivered_at: "2026-11-20T10:00:01.000Z",
  payload: { id: `1111111${i}-0000-4000-8000-000000000000`, type: "budget.alert.triggered" },
  ...over,
});

/** The bodies the product API received for a method and path. */
function recorded(method: string, path: string) {
  const bodies: unknown[] = [];
  return {
    bodies,
    handler: (answer: () => Response) =>
      http[method.toLowerCase() as "post" | "patch" | "delete"](api(path), async ({ request }) => {
        const text = await request.text();
        bodies.push(text ? JSON.parse(text) : null);
        return answer();
      }),
  };
}

const list = (endpoints: WebhookEndpoint[]) =>
  http.get(api("/v1/webhook-endpoints"), () => HttpResponse.json({ endpoints }));

describe("Webhooks page", () => {
  it("lists endpoints with their events and state, and says when there are none", async () => {
    renderPage(<WebhooksListPage />, {
      route: resource.list as string,
      me: ADMIN,
      handlers: [list([endpoint()])],
    });
    expect(await screen.findByRole("heading", { name: "Webhooks" })).toBeInTheDocument();
    const row = (await screen.findByText("https://hooks.example.com/eval")).closest("tr") as HTMLElement;
    expect(within(row).getByText("Ops pager")).toBeInTheDocument();
    expect(within(row).getByText("budget.alert.resolved")).toBeInTheDocument();
    expect(within(row).getByRole("switch", { name: "Disable https://hooks.example.com/eval" })).toBeChecked();
    expect(within(row).getByRole("link")).toHaveAttribute("href", `/organization/webhooks/${ID}`);
  });

  it("shows the empty state with a way to add the first endpoint", async () => {
    renderPage(<WebhooksListPage />, { route: resource.list as string, me: ADMIN, handlers: [list([])] });
    expect(await screen.findByText("No webhook endpoints yet")).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: /Add Your First Endpoint/ })).toBeInTheDocument();
  });

  it("adds an endpoint and shows its signing secret once, with a copy button", async () => {
    const user = userEvent.setup({ delay: null });
    const created = recorded("POST", "/v1/webhook-endpoints");
    renderPage(<WebhooksListPage />, {
      route: resource.list as string,
      me: ADMIN,
      handlers: [
        list([]),
        created.handler(() =>
          HttpResponse.json(
            { ...endpoint({ description: "" }), secret: "whsec_abc123secret" },
            { status: 201 },
          ),
        ),
      ],
    });
    await user.click(await screen.findByRole("button", { name: /Add Your First Endpoint/ }));
    const dialog = await findDialog("Add Webhook Endpoint");
    await user.type(within(dialog).getByLabelText("Endpoint URL"), "https://hooks.example.com/eval");
    await user.click(within(dialog).getByRole("checkbox", { name: /budget\.alert\.resolved/ }));
    // Every event type is checked at first, the eval runs' too.
    await user.click(within(dialog).getByRole("checkbox", { name: /eval_run\.finished/ }));
    await user.click(within(dialog).getByRole("button", { name: "Add Endpoint" }));
    const secret = await findDialog("Your endpoint's signing secret");
    expect(within(secret).getByLabelText("Signing secret")).toHaveValue("whsec_abc123secret");
    expect(within(secret).getByRole("button", { name: "Copy signing secret" })).toBeInTheDocument();
    expect(within(secret).getByText("Shown only once")).toBeInTheDocument();
    expect(created.bodies).toEqual([
      { url: "https://hooks.example.com/eval", events: ["budget.alert.triggered"], enabled: true },
    ]);
    await user.click(within(secret).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByText("whsec_abc123secret")).not.toBeInTheDocument());
  });

  it("shows the server's reason when an endpoint is refused", async () => {
    const user = userEvent.setup({ delay: null });
    renderPage(<WebhooksListPage />, {
      route: resource.list as string,
      me: ADMIN,
      handlers: [
        list([]),
        http.post(api("/v1/webhook-endpoints"), () =>
          apiError(
            400,
            "invalid_request",
            "The host 10.0.0.7 resolves to 10.0.0.7, a loopback, private or link-local address, which webhooks may not reach.",
          ),
        ),
      ],
    });
    await user.click(await screen.findByRole("button", { name: /Add Your First Endpoint/ }));
    const dialog = await findDialog("Add Webhook Endpoint");
    await user.type(within(dialog).getByLabelText("Endpoint URL"), "http://10.0.0.7/hook");
    await user.click(within(dialog).getByRole("button", { name: "Add Endpoint" }));
    expect(await screen.findByText(/a loopback, private or link-local address/)).toBeInTheDocument();
  });

  it("disables an endpoint, rotates its secret and deletes it after confirmations", async () => {
    const user = userEvent.setup({ delay: null });
    const patched = recorded("PATCH", `/v1/webhook-endpoints/${ID}`);
    const rotated = recorded("POST", `/v1/webhook-endpoints/${ID}/rotate-secret`);
    const deleted = recorded("DELETE", `/v1/webhook-endpoints/${ID}`);
    renderPage(<WebhooksListPage />, {
      route: resource.list as string,
      me: ADMIN,
      handlers: [
        list([endpoint()]),
        patched.handler(() => HttpResponse.json(endpoint({ enabled: false }))),
        rotated.handler(() => HttpResponse.json({ ...endpoint(), secret: "whsec_rotated" })),
        deleted.handler(() => new HttpResponse(null, { status: 204 })),
      ],
    });
    await user.click(await screen.findByRole("switch", { name: "Disable https://hooks.example.com/eval" }));
    await waitFor(() => expect(patched.bodies).toEqual([{ enabled: false }]));

    await user.click(
      screen.getByRole("button", { name: "Rotate the secret of https://hooks.example.com/eval" }),
    );
    const confirm = await findDialog("Rotate signing secret");
    await user.click(within(confirm).getByRole("button", { name: "Rotate" }));
    const secret = await findDialog("New signing secret");
    expect(within(secret).getByLabelText("Signing secret")).toHaveValue("whsec_rotated");
    expect(rotated.bodies).toHaveLength(1);
    await user.click(within(secret).getByRole("button", { name: "Done" }));

    await user.click(screen.getByRole("button", { name: "Delete https://hooks.example.com/eval" }));
    const del = await findDialog("Delete webhook endpoint");
    expect(deleted.bodies).toHaveLength(0);
    await user.click(within(del).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(deleted.bodies).toHaveLength(1));
  });
});

describe("Webhook endpoint page", () => {
  const route = resource.show as string;
  const path = `/organization/webhooks/${ID}`;

  it("shows the endpoint and its delivery log with status, attempts, last answer and next retry", async () => {
    renderPage(<WebhookShowPage />, {
      route,
      path,
      me: ADMIN,
      handlers: [
        http.get(api(`/v1/webhook-endpoints/${ID}`), () => HttpResponse.json(endpoint())),
        http.get(api(`/v1/webhook-endpoints/${ID}/deliveries`), () =>
          HttpResponse.json({
            deliveries: [
              delivery(3, {
                status: "pending",
                attempts: 2,
                last_status_code: 503,
                last_error: "error 503",
                next_attempt_at: "2026-11-20T10:12:00.000Z",
                delivered_at: null,
              }),
              delivery(2, {
                status: "failed",
                attempts: 8,
                last_status_code: null,
                last_error: "No answer within 10 s.",
              }),
              delivery(1, { event_type: "webhook.test" }),
            ],
            total: 3,
            page: 1,
            page_size: 20,
          }),
        ),
      ],
    });
    expect(await screen.findByText("https://hooks.example.com/eval")).toBeInTheDocument();
    expect(await screen.findByText("3 deliveries")).toBeInTheDocument();
    const pending = screen.getByText("11111113-0000-4000-8000-000000000000").closest("tr") as HTMLElement;
    expect(within(pending).getByText("Pending")).toBeInTheDocument();
    expect(within(pending).getByText("HTTP 503")).toBeInTheDocument();
    expect(within(pending).getByText("2")).toBeInTheDocument();
    const failed = screen.getByText("11111112-0000-4000-8000-000000000000").closest("tr") as HTMLElement;
    expect(within(failed).getByText("Failed")).toBeInTheDocument();
    expect(within(failed).getByText("No answer")).toBeInTheDocument();
    expect(within(failed).getByText("8")).toBeInTheDocument();
    const test = screen.getByText("11111111-0000-4000-8000-000000000000").closest("tr") as HTMLElement;
    expect(within(test).getByText("Succeeded")).toBeInTheDocument();
    expect(within(test).getByText("webhook.test")).toBeInTheDocument();
  });

  it("sends a test event and retries a delivery", async () => {
    const user = userEvent.setup({ delay: null });
    const tests = recorded("POST", `/v1/webhook-endpoints/${ID}/test`);
    const retries = recorded(
      "POST",
      `/v1/webhook-endpoints/${ID}/deliveries/00000002-0000-4000-8000-000000000000/retry`,
    );
    let logReads = 0;
    renderPage(<WebhookShowPage />, {
      route,
      path,
      me: ADMIN,
      handlers: [
        http.get(api(`/v1/webhook-endpoints/${ID}`), () => HttpResponse.json(endpoint())),
        http.get(api(`/v1/webhook-endpoints/${ID}/deliveries`), () => {
          logReads++;
          return HttpResponse.json({
            deliveries: [delivery(2, { status: "failed", attempts: 8, last_status_code: 500 })],
            total: 1,
            page: 1,
            page_size: 20,
          });
        }),
        tests.handler(() =>
          HttpResponse.json(delivery(4, { status: "pending", attempts: 0 }), { status: 202 }),
        ),
        retries.handler(() => HttpResponse.json(delivery(2, { status: "pending" }), { status: 202 })),
      ],
    });
    await screen.findByText("1 delivery");
    const before = logReads;
    await user.click(screen.getByRole("button", { name: /Send test event/ }));
    await waitFor(() => expect(tests.bodies).toHaveLength(1));
    await waitFor(() => expect(logReads).toBeGreaterThan(before));
    await user.click(
      screen.getByRole("button", { name: "Retry delivery 11111112-0000-4000-8000-000000000000" }),
    );
    await waitFor(() => expect(retries.bodies).toHaveLength(1));
    expect(await screen.findByText("Delivery queued again")).toBeInTheDocument();
  });

  it("shows when the circuit breaker paused the endpoint, and when it probes", async () => {
    const paused = endpoint({
      breaker: { state: "open", consecutive_failures: 5, paused_until: "2026-11-20T10:15:00.000Z" },
    });
    const page = renderPage(<WebhookShowPage />, {
      route,
      path,
      me: ADMIN,
      handlers: [
        http.get(api(`/v1/webhook-endpoints/${ID}`), () => HttpResponse.json(paused)),
        http.get(api(`/v1/webhook-endpoints/${ID}/deliveries`), () =>
          HttpResponse.json({ deliveries: [], total: 0, page: 1, page_size: 20 }),
        ),
      ],
    });
    expect(await screen.findByText("Paused")).toBeInTheDocument();
    expect(screen.getByText(/5 failed attempts in a row: deliveries wait until/)).toBeInTheDocument();
    page.unmount();

    renderPage(<WebhookShowPage />, {
      route,
      path,
      me: ADMIN,
      handlers: [
        http.get(api(`/v1/webhook-endpoints/${ID}`), () =>
          HttpResponse.json(
            endpoint({ breaker: { state: "half_open", consecutive_failures: 6, paused_until: null } }),
          ),
        ),
        http.get(api(`/v1/webhook-endpoints/${ID}/deliveries`), () =>
          HttpResponse.json({ deliveries: [], total: 0, page: 1, page_size: 20 }),
        ),
      ],
    });
    expect(await screen.findByText("Probing")).toBeInTheDocument();
    expect(screen.getByText(/one delivery at a time until one succeeds/)).toBeInTheDocument();
  });

  it("says when the endpoint does not exist", async () => {
    renderPage(<WebhookShowPage />, {
      route,
      path,
      me: ADMIN,
      handlers: [
        http.get(api(`/v1/webhook-endpoints/${ID}`), () =>
          apiError(404, "not_found", "No such webhook endpoint in your organization."),
        ),
      ],
    });
    expect(await screen.findByText("No such webhook endpoint.")).toBeInTheDocument();
  });
});
