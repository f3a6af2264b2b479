import { sql } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import type { BudgetAlert } from "../../contract/budgets";
import type { WebhookDelivery, WebhookEndpointWithSecret } from "../../contract/webhooks";
import { startWebhookReceiver, type WebhookReceiver } from "../e2e/webhook-receiver";
import { type Backend, startProduct, type TestProduct } from "./harness";
import { rowsOf } from "./tenants";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

/** Fast retries (50 ms base) and a receiver on 127.0.0.1 allowed, as the test server runs. */
export const FAST_WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_BASE_SECONDS: "0.05" };

/** Called in a describe block: a product with `env`, the workspaces fixture and a webhook receiver. */
export function webhookSuite(backend: Backend, env: Record<string, string> = FAST_WEBHOOKS) {
  const suite = {} as { p: TestProduct; f: Fixture; receiver: WebhookReceiver };
  beforeAll(async () => {
    suite.p = await startProduct(backend, env);
    suite.f = await setUpWorkspaces(suite.p);
    suite.receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await suite.receiver?.close();
    await suite.p?.dispose();
  });
  return suite;
}

/** A budget alert as the budgets engine sends it, for enqueuing events by hand. */
export const sampleAlert = (threshold = 80): BudgetAlert => ({
  budget_uuid: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  scope: "organization",
  workspace_uuid: null,
  workspace_name: null,
  threshold,
  state: "triggered",
  amount: "100",
  spent: "81",
  cycle_start: "2026-11-01T00:00:00.000Z",
  triggered_at: new Date().toISOString(),
  resolved_at: null,
});

/** Creates an endpoint as Acme's admin; the answer (with its secret). */
export async function createEndpoint(
  f: Fixture,
  url: string,
  events: string[] = ["budget.alert.triggered", "budget.alert.resolved"],
  extra: Record<string, unknown> = {},
): Promise<WebhookEndpointWithSecret> {
  const res = await f.call("admin", "POST", "/v1/webhook-endpoints", { url, events, ...extra });
  if (res.statusCode !== 201) throw new Error(`create endpoint: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function deliveries(f: Fixture, endpoint: string, query = ""): Promise<WebhookDelivery[]> {
  const res = await f.call("admin", "GET", `/v1/webhook-endpoints/${endpoint}/deliveries${query}`);
  if (res.statusCode !== 200) throw new Error(`deliveries: ${res.statusCode} ${res.body}`);
  return res.json().deliveries;
}

/** Polls the delivery log until `done` holds for the delivery, or throws after `timeoutMs`. */
export async function waitForDelivery(
  f: Fixture,
  endpoint: string,
  deliveryUuid: string,
  done: (d: WebhookDelivery) => boolean,
  timeoutMs = 15_000,
): Promise<WebhookDelivery> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = (await deliveries(f, endpoint, "?page_size=100")).find((x) => x.delivery_uuid === deliveryUuid);
    if (d && done(d)) return d;
    if (Date.now() > until) throw new Error(`delivery ${deliveryUuid} not done: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** Makes every pending delivery due now (skipping the backoff wait and any breaker's cool-down). */
export async function makeDue(p: TestProduct) {
  await p.database.db.execute(
    sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending' and leased_until is null`,
  );
  await p.database.db.execute(
    sql`update webhook_endpoints set paused_until = null where paused_until is not null`,
  );
}

export const countDeliveries = async (p: TestProduct) =>
  Number(
    rowsOf<{ n: string }>(await p.database.db.execute(sql`select count(*) as n from webhook_deliveries`))[0]
      ?.n,
  );
