import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Product } from "../../server/app";
import { DEMO_ORG } from "../../server/seed";
import {
  accessToken,
  backends,
  createOrgApiKey,
  secondProcess,
  signIn,
  startProduct,
  type TestProduct,
} from "./harness";
import { setSamplePrices, USAGE_EVENTS_URL } from "./usage-setup";

// The API is stateless, so it scales by adding processes behind a load balancer. Two products
// (identity + API, each with its own pool and in-memory caches) on one PostgreSQL database stand
// for two server processes: what one of them does must hold in the other too.

// Small enough that every hit is counted in the shared table before it is decided (exact), large
// enough for the other tests' calls with one credential.
const LIMIT = 30;
const LIMITS = { API_RATE_LIMIT_PER_CREDENTIAL: String(LIMIT), API_RATE_LIMIT_PER_ORG: "0" };

/** Waits (up to `ms`) until `check` is true; how long that took, or null when it never was. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started <= ms) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 25));
  }
  return null;
}

describe.runIf(process.env.DATABASE_URL)("two API processes on one PostgreSQL database", () => {
  const postgres = backends().find((b) => b.name === "postgres");
  let a: TestProduct;
  let b: Product;
  let orgId = "";
  let adminCookie = "";
  let bearer = "";

  beforeAll(async () => {
    if (!postgres) throw new Error("no PostgreSQL backend");
    a = await startProduct(postgres, LIMITS);
    b = await secondProcess(a, LIMITS);
    orgId = (await a.identity.admin.findOrganizationBySlug(DEMO_ORG.slug))?.id ?? "";
    adminCookie = await signIn(a, "admin@acme.test");
    bearer = await accessToken(a, "admin@acme.test");
    await setSamplePrices(a.database.db);
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.dispose();
  });

  const ingest = (p: Product, events: unknown[]) =>
    p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?organization_uuid=${orgId}`,
      headers: { authorization: `Bearer ${a.identity.ctx.backendApiKey}` },
      payload: { events },
    });

  const events = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      event_id: `${prefix}-${i}`,
      occurred_at: new Date().toISOString(),
      operation: "generation",
      eval_type: "safety",
      quantity: 2,
    }));

  const summaryEvents = async (p: Product) => {
    const res = await p.api.app.inject({
      method: "GET",
      url: "/v1/usage/summary",
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().totals.events as number;
  };

  /** A new organization API key of the demo administrator: its id and token. */
  const orgApiKey = () => createOrgApiKey(a, adminCookie, orgId);

  const listWith = (p: Product, apiKey: string) =>
    p.api.app.inject({ method: "GET", url: "/v1/workspaces/", headers: { "x-api-key": apiKey } });

  it("stores a batch sent to both processes at the same moment once", async () => {
    const batch = events("both", 20);
    const before = await summaryEvents(a);
    const [ra, rb] = await Promise.all([ingest(a, batch), ingest(b, batch)]);
    expect(ra.statusCode, ra.body).toBe(200);
    expect(rb.statusCode, rb.body).toBe(200);
    const [x, y] = [ra.json(), rb.json()];
    expect(x.accepted + y.accepted).toBe(20);
    expect(x.duplicates + y.duplicates).toBe(20);
    // Sent again to either: all duplicates.
    expect((await ingest(b, batch)).json()).toMatchObject({ accepted: 0, duplicates: 20 });
    expect(await summaryEvents(a)).toBe(before + 20);
    expect(await summaryEvents(b)).toBe(before + 20);
  });

  it("shows an ingestion through one process in the other's dashboard reads", async () => {
    // Both have answered (and may have cached) the summary before the new events arrive.
    const before = await summaryEvents(a);
    expect(await summaryEvents(b)).toBe(before);
    expect((await ingest(b, events("other", 3))).json()).toMatchObject({ accepted: 3 });
    expect(await summaryEvents(a)).toBe(before + 3);
    expect(await summaryEvents(b)).toBe(before + 3);
  });

  it("counts one credential's calls against one limit across both processes", async () => {
    const key = await orgApiKey();
    // Start in a fresh minute window when the current one is nearly over.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
    // Half of the limit through each process, in turn.
    for (let i = 1; i <= LIMIT; i++) {
      const res = await listWith(i % 2 ? a : b, key.token);
      expect(res.statusCode, `call ${i}: ${res.body}`).toBe(200);
      expect(res.headers["ratelimit-remaining"]).toBe(String(LIMIT - i));
    }
    expect((await listWith(a, key.token)).statusCode).toBe(429);
    expect((await listWith(b, key.token)).statusCode).toBe(429);
  });

  it("refuses a deleted organization API key in both processes within 5 s", async () => {
    const key = await orgApiKey();
    // Both have validated (and may have cached) the key.
    expect((await listWith(a, key.token)).statusCode).toBe(200);
    expect((await listWith(b, key.token)).statusCode).toBe(200);
    const deleted = await a.identity.app.inject({
      method: "DELETE",
      url: `/api/fe/v3/api_keys/${key.id}`,
      headers: { cookie: adminCookie, "x-csrf-token": "-.-" },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const refused = async (p: Product) => (await listWith(p, key.token)).statusCode === 401;
    // The process that deleted it refuses at once; the other within the 5 s bound.
    expect(await refused(a)).toBe(true);
    expect(await within(5_000, () => refused(b))).not.toBeNull();
  });
});
