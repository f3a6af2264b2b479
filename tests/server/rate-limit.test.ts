import type { LightMyRequestResponse } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiService } from "../../server/api/service";
import { resolveOrganization } from "../../server/metering/billing/billing";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { loadConfig } from "../../server/platform/config";
import { type Database, openDatabase } from "../../server/platform/database";
import { accessToken, backends, PASSWORD, startProduct, type TestProduct } from "./harness";

// /v1 rate limits per credential and per organization: one-minute windows counted by the database's
// shared rate-limit store, so that two API processes on one database share them.

/** Waits for a fresh minute when the current one is nearly over, so one test stays in one window. */
async function inOneWindow(seconds = 15) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
}

function expectRateHeaders(res: LightMyRequestResponse, limit: number, remaining: number) {
  expect(res.headers["ratelimit-limit"]).toBe(String(limit));
  expect(res.headers["ratelimit-remaining"]).toBe(String(remaining));
  const reset = Number(res.headers["ratelimit-reset"]);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

function expectRefused(res: LightMyRequestResponse, limit: number) {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json().error.code).toBe("rate_limited");
  expectRateHeaders(res, limit, 0);
  const retry = Number(res.headers["retry-after"]);
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(retry).toBe(Number(res.headers["ratelimit-reset"]));
}

describe.each(backends())("API rate limits on $name", (backend) => {
  let p: TestProduct;
  let admin = "";
  let member = "";
  const services: { app: TestProduct["api"]["app"]; database: Database | null }[] = [];

  beforeAll(async () => {
    p = await startProduct(backend, {
      API_RATE_LIMIT_PER_CREDENTIAL: "3",
      API_RATE_LIMIT_PER_ORG: "5",
      INGEST_RATE_LIMIT_PER_KEY: "2",
      INGEST_RATE_LIMIT_PER_ORG: "3",
    });
    admin = await accessToken(p, "admin@acme.test");
    member = await accessToken(p, "member@acme.test");
  });
  afterAll(async () => {
    for (const s of services) {
      await s.app.close();
      await s.database?.close();
    }
    await p?.dispose();
  });

  const call = (app: TestProduct["api"]["app"], token: string) =>
    app.inject({ method: "GET", url: "/v1/accounts/me", headers: { authorization: `Bearer ${token}` } });

  it("answers 429 with Retry-After and RateLimit-* on the call after the limit, per credential and per organization", async () => {
    await inOneWindow();
    for (let i = 0; i < 3; i++) {
      const res = await call(p.api.app, admin);
      expect(res.statusCode, res.body).toBe(200);
      // The organization's limit (5) has more left than the credential's (3) until the end.
      expectRateHeaders(res, 3, 2 - i);
    }
    expectRefused(await call(p.api.app, admin), 3);
    // Another credential of the same organization still gets through, until the organization's 5.
    const first = await call(p.api.app, member);
    expect(first.statusCode).toBe(200);
    expectRateHeaders(first, 5, 1);
    expect((await call(p.api.app, member)).statusCode).toBe(200);
    expectRefused(await call(p.api.app, member), 5);
    // Calls without valid credentials are not counted against anyone: they are 401s.
    const anonymous = await p.api.app.inject({ method: "GET", url: "/v1/accounts/me" });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers["ratelimit-limit"]).toBeUndefined();
  });

  it("limits ingestion per ingestion key and per organization, never the operator's own calls", async () => {
    const org = (await resolveOrganization(p.database.db, "Acme AI")).id;
    const key = async () =>
      (await createIngestKey(p.database.db, { name: "limits", organizationUuid: org })).token;
    const [first, second] = [await key(), await key()];
    let n = 0;
    const send = (headers: Record<string, string>) =>
      p.api.app.inject({
        method: "POST",
        url: `/v1/usage/events?organization_uuid=${org}`,
        headers: { ...headers, "content-type": "application/json" },
        payload: {
          events: [
            {
              event_id: `limit-${Date.now()}-${n++}`,
              occurred_at: new Date().toISOString(),
              operation: "generation",
              eval_type: "safety",
            },
          ],
        },
      });
    await inOneWindow();
    const a1 = await send({ "x-api-key": first });
    expect(a1.statusCode, a1.body).toBe(200);
    expectRateHeaders(a1, 2, 1);
    expect((await send({ "x-api-key": first })).statusCode).toBe(200);
    const refused = await send({ "x-api-key": first });
    expectRefused(refused, 2);
    // Refused before the body was read: nothing of it was stored.
    expect(refused.json().error.message).toMatch(/^Too many requests: at most 2 a minute/);
    // Another key of the same organization: the organization's 3 (two used by the first key).
    const b1 = await send({ "x-api-key": second });
    expect(b1.statusCode).toBe(200);
    expectRateHeaders(b1, 3, 0);
    expectRefused(await send({ "x-api-key": second }), 3);
    // The provider's operator (backend key) is not an eval service: never counted.
    const operator = await send({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
    expect(operator.statusCode, operator.body).toBe(200);
    expect(operator.headers["ratelimit-limit"]).toBeUndefined();
  });

  it("shares the count between two API processes on one database", async () => {
    // Two more API services, each with its own in-memory counters, on the same database (on
    // PostgreSQL the second through a pool of its own, as another process would).
    const url = process.env.DATABASE_URL;
    let database: Database | null = null;
    if (backend.name === "postgres" && url) {
      const target = new URL(url);
      target.pathname = p.database.describe.slice(p.database.describe.lastIndexOf("/"));
      database = await openDatabase({ kind: "postgres", url: target.toString() });
    }
    const config = loadConfig({
      DEMO_PASSWORD: PASSWORD,
      CONSOLE_DIR: "./tests/server/fixtures/console",
      API_RATE_LIMIT_PER_CREDENTIAL: "3",
      API_RATE_LIMIT_PER_ORG: "0",
    });
    const log = pino({ level: "silent" });
    const one = await createApiService(config, p.database, p.identity.gateway, log);
    const two = await createApiService(config, database ?? p.database, p.identity.gateway, log);
    services.push({ app: one.app, database: null }, { app: two.app, database });
    // A credential not used before, in a fresh window.
    const token = await accessToken(p, "newcomer@acme.test");
    await inOneWindow();
    expect((await call(one.app, token)).statusCode).toBe(200);
    expect((await call(one.app, token)).statusCode).toBe(200);
    const third = await call(two.app, token);
    expect(third.statusCode, third.body).toBe(200);
    expectRateHeaders(third, 3, 0);
    expectRefused(await call(two.app, token), 3);
    expectRefused(await call(one.app, token), 3);
  });

  it("is atomic: 80 parallel calls on a limit of 40 admit exactly 40, each told a different count left", async () => {
    const config = loadConfig({
      DEMO_PASSWORD: PASSWORD,
      CONSOLE_DIR: "./tests/server/fixtures/console",
      API_RATE_LIMIT_PER_CREDENTIAL: "40",
      API_RATE_LIMIT_PER_ORG: "0",
    });
    const api = await createApiService(config, p.database, p.identity.gateway, pino({ level: "silent" }));
    services.push({ app: api.app, database: null });
    await inOneWindow();
    const answers = await Promise.all(Array.from({ length: 80 }, () => call(api.app, admin)));
    const admitted = answers.filter((r) => r.statusCode === 200);
    expect(admitted).toHaveLength(40);
    for (const r of answers.filter((a) => a.statusCode !== 200)) expectRefused(r, 40);
    const left = admitted.map((r) => Number(r.headers["ratelimit-remaining"])).sort((a, b) => b - a);
    expect(left).toEqual(Array.from({ length: 40 }, (_, i) => 39 - i));
  });
});

describe("API rate limit configuration", () => {
  it("defaults to 6,000 calls a minute per credential and 30,000 per organization; 0 turns a limit off", () => {
    expect(loadConfig({}).apiRateLimits).toEqual({ perCredential: 6_000, perOrg: 30_000 });
    expect(
      loadConfig({ API_RATE_LIMIT_PER_CREDENTIAL: "0", API_RATE_LIMIT_PER_ORG: "120" }).apiRateLimits,
    ).toEqual({ perCredential: 0, perOrg: 120 });
    expect(() => loadConfig({ API_RATE_LIMIT_PER_CREDENTIAL: "-1" })).toThrow(
      /API_RATE_LIMIT_PER_CREDENTIAL/,
    );
    expect(() => loadConfig({ API_RATE_LIMIT_PER_ORG: "lots" })).toThrow(/API_RATE_LIMIT_PER_ORG/);
  });
});
