import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { WebhookEndpoint } from "../../contract/webhooks";
import { enqueueWebhookEvent } from "../../server/webhooks/enqueue";
import { webhookKeyring } from "../../server/webhooks/secrets";
import { createWebhookWorker } from "../../server/webhooks/worker";
import { backends, secondProcess, type TestProduct } from "./harness";
import {
  createEndpoint,
  FAST_WEBHOOKS,
  sampleAlert,
  waitForDelivery,
  webhookSuite,
} from "./webhooks-fixture";

// Webhook deliveries shared fairly between organizations (issue 23): a slow receiver holds only
// its own organization's and endpoint's slots, an endpoint that keeps failing is paused by its
// circuit breaker, and test events and retries by hand are limited per organization.

/**
 * A receiver that holds every request for `holdMs` (forever when null) before answering 200, and
 * keeps the most requests it held at once, in all and per path.
 */
async function startSlowReceiver(holdMs: number | null) {
  let open = 0;
  const openByPath = new Map<string, number>();
  const peak = { all: 0, byPath: new Map<string, number>() };
  const hits: { path: string; at: number }[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.push({ path, at: Date.now() });
    open++;
    openByPath.set(path, (openByPath.get(path) ?? 0) + 1);
    peak.all = Math.max(peak.all, open);
    peak.byPath.set(path, Math.max(peak.byPath.get(path) ?? 0, openByPath.get(path) ?? 0));
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      open--;
      openByPath.set(path, (openByPath.get(path) ?? 1) - 1);
    };
    req.resume();
    res.on("close", close);
    if (holdMs !== null) setTimeout(() => res.writeHead(200).end("ok"), holdMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    peak,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Queues `n` budget alert events for the organization (one delivery per subscribed endpoint each). */
const queueEvents = (t: { p: TestProduct }, org: string, n: number) =>
  t.p.database.db.transaction(async (tx) => {
    for (let i = 0; i < n; i++)
      await enqueueWebhookEvent(tx, {
        organizationId: org,
        type: "budget.alert.triggered",
        data: sampleAlert(),
      });
  });

describe.each(backends())("fair webhook delivery on $name", (backend) => {
  // The default caps, breaker and limits; fast retries and a receiver on 127.0.0.1.
  const t = webhookSuite(backend, FAST_WEBHOOKS);

  it("an organization whose receiver hangs does not hold up another organization's test event", async () => {
    const hang = await startSlowReceiver(null);
    const ids: string[] = [];
    try {
      // Ten endpoints at a receiver that never answers (each attempt runs to the 10 s timeout)…
      for (let i = 0; i < 10; i++)
        ids.push(
          (await createEndpoint(t.f, `${hang.url}/hang/${i}`, ["budget.alert.triggered"])).endpoint_uuid,
        );
      // …and 60 deliveries queued to them.
      await queueEvents(t, t.f.acmeId, 6);
      const until = Date.now() + 10_000;
      while (hang.hits.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(hang.hits.length).toBeGreaterThan(0);

      const created = await t.f.call("other", "POST", "/v1/webhook-endpoints", {
        url: `${t.receiver.url}/globex-test`,
        events: ["budget.alert.triggered"],
      });
      expect(created.statusCode, created.body).toBe(201);
      const sent = Date.now();
      const test = await t.f.call(
        "other",
        "POST",
        `/v1/webhook-endpoints/${created.json().endpoint_uuid}/test`,
      );
      expect(test.statusCode, test.body).toBe(202);
      const [hit] = await t.receiver.waitFor(1, (r) => r.json?.id === test.json().event_id, 20_000);
      expect(hit!.at - sent).toBeLessThan(3_000);
      // The hanging organization holds at most its cap of slots (8), never the worker's (32).
      expect(hang.peak.all).toBeLessThanOrEqual(8);
      for (const n of hang.peak.byPath.values()) expect(n).toBeLessThanOrEqual(4);
    } finally {
      for (const id of ids) await t.f.call("admin", "DELETE", `/v1/webhook-endpoints/${id}`);
      hang.close();
    }
  });

  it("limits test events and retries per organization: 429 with Retry-After and RateLimit headers", async () => {
    // Fixed one-minute windows: start well inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const ep = await createEndpoint(t.f, `${t.receiver.url}/limited`);
    const path = `/v1/webhook-endpoints/${ep.endpoint_uuid}`;
    let refused: Awaited<ReturnType<typeof t.f.call>> | null = null;
    let accepted = 0;
    let firstDelivery = "";
    for (let i = 0; i < 40 && !refused; i++) {
      const res = await t.f.call("admin", "POST", `${path}/test`);
      if (res.statusCode === 429) refused = res;
      else {
        expect(res.statusCode, res.body).toBe(202);
        expect(res.headers["ratelimit-limit"]).toBe("30");
        expect(Number(res.headers["ratelimit-remaining"])).toBe(30 - (i + 1));
        firstDelivery ||= res.json().delivery_uuid;
        accepted++;
      }
    }
    expect(accepted).toBe(30);
    expect(refused).not.toBeNull();
    expect(refused!.headers["retry-after"]).toMatch(/^\d+$/);
    expect(Number(refused!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(refused!.headers["ratelimit-limit"]).toBe("30");
    expect(refused!.headers["ratelimit-remaining"]).toBe("0");
    expect(refused!.json()).toEqual({
      error: { code: "rate_limited", message: expect.stringMatching(/at most 30 a minute/) },
    });
    // Retries by hand share the limit…
    const retry = await t.f.call("admin", "POST", `${path}/deliveries/${firstDelivery}/retry`);
    expect(retry.statusCode).toBe(429);
    expect(retry.json().error.code).toBe("rate_limited");
    // …which is the organization's: another organization still sends its test events.
    const globex = await t.f.call("other", "POST", "/v1/webhook-endpoints", {
      url: `${t.receiver.url}/globex-limited`,
      events: ["budget.alert.triggered"],
    });
    const other = await t.f.call(
      "other",
      "POST",
      `/v1/webhook-endpoints/${globex.json().endpoint_uuid}/test`,
    );
    expect(other.statusCode, other.body).toBe(202);
    // Reading and changing endpoints are not counted.
    expect((await t.f.call("admin", "GET", path)).statusCode).toBe(200);
  });
});

describe.each(backends())("webhook caps and circuit breaker on $name", (backend) => {
  const env = {
    ...FAST_WEBHOOKS,
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: "2",
    WEBHOOK_MAX_IN_FLIGHT_PER_ORG: "3",
    WEBHOOK_BREAKER_FAILURES: "3",
    WEBHOOK_BREAKER_COOLDOWN_SECONDS: "1.5",
  };
  const t = webhookSuite(backend, env);

  it("keeps at most the per-endpoint and per-organization caps in flight, across workers", async () => {
    const slow = await startSlowReceiver(150);
    const other = backend.name === "postgres" ? await secondProcess(t.p, env) : null;
    // A second worker: in a second process on PostgreSQL, beside the first on PGlite.
    const second = createWebhookWorker({
      db: (other ?? t.p).database.db,
      keyring: webhookKeyring(t.p.config, t.p.database),
      allowPrivateUrls: true,
      retryBaseSeconds: 0.05,
      limits: {
        maxInFlightPerEndpoint: 2,
        maxInFlightPerOrg: 3,
        breakerFailures: 3,
        breakerCooldownSeconds: 1.5,
      },
    });
    const ids: string[] = [];
    try {
      second.start();
      for (let i = 0; i < 3; i++)
        ids.push(
          (await createEndpoint(t.f, `${slow.url}/cap/${i}`, ["budget.alert.triggered"])).endpoint_uuid,
        );
      await queueEvents(t, t.f.acmeId, 6);
      const until = Date.now() + 30_000;
      while (slow.hits.length < 18 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect(slow.hits).toHaveLength(18);
      for (const id of ids) {
        const log = (await t.f.call("admin", "GET", `/v1/webhook-endpoints/${id}/deliveries`)).json();
        expect(log.total).toBe(6);
      }
      await new Promise((r) => setTimeout(r, 300));
      // Three endpoints: the organization's cap (3) binds; taking turns, each endpoint may have had
      // only one at a time, never more than its cap.
      expect(slow.peak.all).toBe(3);
      expect([...slow.peak.byPath.values()].every((n) => n <= 2)).toBe(true);
      for (const id of ids.splice(0)) await t.f.call("admin", "DELETE", `/v1/webhook-endpoints/${id}`);
      // One endpoint alone: its own cap (2) binds, below the organization's.
      ids.push((await createEndpoint(t.f, `${slow.url}/solo`, ["budget.alert.triggered"])).endpoint_uuid);
      await queueEvents(t, t.f.acmeId, 6);
      const soloUntil = Date.now() + 30_000;
      while (slow.hits.length < 24 && Date.now() < soloUntil) await new Promise((r) => setTimeout(r, 25));
      expect(slow.hits).toHaveLength(24);
      expect(slow.peak.byPath.get("/solo")).toBe(2);
    } finally {
      await second.stop();
      for (const id of ids) await t.f.call("admin", "DELETE", `/v1/webhook-endpoints/${id}`);
      slow.close();
      await other?.close();
    }
  });

  it("opens the breaker after consecutive failures, pauses the endpoint, doubles the cool-down, and a success closes it", async () => {
    let answer = 500;
    t.receiver.setRespond((r) => (r.path === "/hooks/breaker" ? answer : 200));
    const onBreaker = () => t.receiver.received.filter((r) => r.path === "/hooks/breaker").length;
    const get = async (): Promise<WebhookEndpoint> =>
      (await t.f.call("admin", "GET", `/v1/webhook-endpoints/${ep.endpoint_uuid}`)).json();
    const waitState = async (done: (e: WebhookEndpoint) => boolean, ms = 15_000) => {
      const until = Date.now() + ms;
      for (;;) {
        const e = await get();
        if (done(e)) return e;
        if (Date.now() > until) throw new Error(`breaker: ${JSON.stringify(e.breaker)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const ep = await createEndpoint(t.f, `${t.receiver.url}/breaker`, ["budget.alert.triggered"]);
    try {
      expect((await get()).breaker).toEqual({ state: "closed", consecutive_failures: 0, paused_until: null });
      await queueEvents(t, t.f.acmeId, 5);
      // Three failed attempts in a row open it.
      const opened = await waitState((e) => e.breaker.state === "open");
      expect(opened.breaker.consecutive_failures).toBeGreaterThanOrEqual(3);
      const pause1 = Date.parse(opened.breaker.paused_until!) - Date.now();
      expect(pause1).toBeGreaterThan(500);
      expect(pause1).toBeLessThanOrEqual(1_500);
      // While open its due deliveries wait: nothing reaches the receiver.
      await new Promise((r) => setTimeout(r, 150));
      const seen = onBreaker();
      await new Promise((r) => setTimeout(r, Math.max(0, pause1 - 400)));
      expect(onBreaker()).toBe(seen);

      // After the cool-down one probe goes out; it fails, and the breaker opens for twice as long.
      // (An attempt under way when it opened may fail later: it counts, but does not move the pause.)
      const reopened = await waitState(
        (e) =>
          e.breaker.state === "open" &&
          Date.parse(e.breaker.paused_until!) > Date.parse(opened.breaker.paused_until!),
      );
      expect(onBreaker()).toBe(seen + 1);
      const pause2 = Date.parse(reopened.breaker.paused_until!) - Date.now();
      expect(pause2).toBeGreaterThan(1_800);
      expect(pause2).toBeLessThanOrEqual(3_000);

      // A test event ends the cool-down: it probes at once, succeeds, and closes the breaker.
      answer = 200;
      const test = await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`);
      expect(test.statusCode).toBe(202);
      const closed = await waitState((e) => e.breaker.state === "closed", 5_000);
      expect(closed.breaker).toEqual({ state: "closed", consecutive_failures: 0, paused_until: null });
      await waitForDelivery(
        t.f,
        ep.endpoint_uuid,
        test.json().delivery_uuid,
        (d) => d.status === "succeeded",
      );
      // The deliveries that waited go out.
      const until = Date.now() + 15_000;
      for (;;) {
        const log = (
          await t.f.call(
            "admin",
            "GET",
            `/v1/webhook-endpoints/${ep.endpoint_uuid}/deliveries?status=succeeded`,
          )
        ).json();
        if (log.total === 6) break;
        if (Date.now() > until) throw new Error(`only ${log.total} of 6 delivered`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      t.receiver.setRespond(() => 200);
      await t.f.call("admin", "DELETE", `/v1/webhook-endpoints/${ep.endpoint_uuid}`);
    }
  });
});
