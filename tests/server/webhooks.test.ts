import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../../contract/budgets";
import { auditLog, webhookEndpoints } from "../../server/db/schema";
import { makeKeyring, sealedWith } from "../../server/platform/secrets";
import { enqueueWebhookEvent } from "../../server/webhooks/enqueue";
import { resealSigningSecrets, sealSigningSecret, webhookKeyring } from "../../server/webhooks/secrets";
import { nextDueInMs, purgeOldDeliveries, WEBHOOK_USER_AGENT } from "../../server/webhooks/worker";
import type { ReceivedWebhook } from "../e2e/webhook-receiver";
import { backends } from "./harness";
import { rowsOf } from "./tenants";
import {
  countDeliveries,
  createEndpoint,
  deliveries,
  makeDue,
  sampleAlert,
  waitForDelivery,
  webhookSuite,
} from "./webhooks-fixture";

// Webhook endpoints as an administrator manages them (/v1/webhook-endpoints) and their deliveries
// as a receiver sees them: signed, retried with growing delays, given up after 8 attempts, never
// sent for a rolled-back event, and recorded in the delivery log.

describe.each(backends())("webhooks on $name", (backend) => {
  const t = webhookSuite(backend);

  it("creates, reads, changes, rotates and deletes an endpoint; the secret shows once and is sealed at rest", async () => {
    const created = await createEndpoint(t.f, t.receiver.url, ["budget.alert.triggered"], {
      description: "ops pager",
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(created).toMatchObject({ url: t.receiver.url, description: "ops pager", enabled: true });
    const id = created.endpoint_uuid;

    const got = await t.f.call("admin", "GET", `/v1/webhook-endpoints/${id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).not.toHaveProperty("secret");
    const list = await t.f.call("adminKey", "GET", "/v1/webhook-endpoints");
    expect(list.json().endpoints.map((e: { endpoint_uuid: string }) => e.endpoint_uuid)).toContain(id);
    expect(list.body).not.toContain("whsec_");

    const [row] = await t.p.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.endpointUuid, id));
    expect(row?.secretSealed).toMatch(/^enc:v1:/);
    expect(row?.secretSealed).not.toContain(created.secret.slice(6));

    const patched = await t.f.call("admin", "PATCH", `/v1/webhook-endpoints/${id}`, {
      events: ["budget.alert.triggered", "budget.alert.resolved"],
      enabled: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      enabled: false,
      events: ["budget.alert.triggered", "budget.alert.resolved"],
    });

    // A receiver's credential in the URL is kept by the endpoint, never by the audit log.
    const withToken = `${t.receiver.url}?token=s3cr3t-receiver-value&team=blue-squad`;
    const moved = await t.f.call("admin", "PATCH", `/v1/webhook-endpoints/${id}`, { url: withToken });
    expect(moved.json().url).toBe(withToken);

    const rotated = await t.f.call("admin", "POST", `/v1/webhook-endpoints/${id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(created.secret);

    const gone = await t.f.call("admin", "DELETE", `/v1/webhook-endpoints/${id}`);
    expect(gone.statusCode).toBe(204);
    expect((await t.f.call("admin", "GET", `/v1/webhook-endpoints/${id}`)).statusCode).toBe(404);

    const audit = await t.p.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetId, id))
      .orderBy(auditLog.id);
    expect(audit.map((a) => a.action)).toEqual([
      "webhook_endpoint.created",
      "webhook_endpoint.changed",
      "webhook_endpoint.changed",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.deleted",
    ]);
    expect(audit[1]?.before).toEqual({ events: ["budget.alert.triggered"], enabled: true });
    expect(audit[2]?.after).toEqual({ url: `${t.receiver.url}?token=[REDACTED]&team=[REDACTED]` });
    const text = JSON.stringify(audit);
    expect(text).not.toContain("s3cr3t");
    expect(text).not.toContain("blue-squad");
    expect(text).not.toContain(created.secret);
    expect(text).not.toContain(rotated.json().secret);
    expect(text).not.toContain("enc:v1:");
  });

  it("refuses bad input with a 400 naming the field, and members with a 403", async () => {
    for (const [body, message] of [
      [{ url: "ftp://example.com/x", events: ["budget.alert.triggered"] }, /http or https/],
      [{ url: "not a url", events: ["budget.alert.triggered"] }, /absolute http/],
      [{ url: "https://user:pw@example.com/", events: ["budget.alert.triggered"] }, /user name or password/],
      [{ url: t.receiver.url, events: [] }, /at least one/],
      [{ url: t.receiver.url, events: ["budget.alert.triggered", "budget.alert.triggered"] }, /repeats/],
      [{ url: t.receiver.url, events: ["user.deleted"] }, /events must be among/],
      [{ url: t.receiver.url, events: ["budget.alert.triggered"], secret: "mine" }, /secret/],
    ] as const) {
      const res = await t.f.call("admin", "POST", "/v1/webhook-endpoints", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.message).toMatch(message);
    }
    const member = await t.f.call("member", "POST", "/v1/webhook-endpoints", {
      url: t.receiver.url,
      events: ["budget.alert.triggered"],
    });
    expect(member.statusCode).toBe(403);
  });

  it("sends a signed test event the receiver verifies, and logs it as succeeded", async () => {
    const ep = await createEndpoint(t.f, t.receiver.url);
    const before = t.receiver.received.length;
    const res = await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`);
    expect(res.statusCode, res.body).toBe(202);
    const queued = res.json();
    expect(queued).toMatchObject({ status: "pending", event_type: "webhook.test", attempts: 0 });

    const [hit] = await t.receiver.waitFor(1, (r) => r.json?.id === queued.event_id);
    expect(t.receiver.received.length).toBe(before + 1);
    expect(hit?.headers["content-type"]).toBe("application/json");
    expect(hit?.headers["user-agent"]).toBe(WEBHOOK_USER_AGENT);
    expect(hit?.headers[WEBHOOK_EVENT_ID_HEADER]).toBe(queued.event_id);
    expect(hit?.headers[WEBHOOK_SIGNATURE_HEADER]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(t.receiver.verify(hit!, ep.secret)).toMatchObject({ ok: true });
    // The signature is the endpoint's: another secret does not verify it.
    expect(t.receiver.verify(hit!, "whsec_other")).toEqual({ ok: false, reason: "mismatch" });
    expect(JSON.parse(hit!.body)).toEqual(queued.payload);
    expect(Object.keys(JSON.parse(hit!.body))).toEqual([
      "id",
      "type",
      "created_at",
      "organization_id",
      "data",
    ]);

    const done = await waitForDelivery(
      t.f,
      ep.endpoint_uuid,
      queued.delivery_uuid,
      (d) => d.status !== "pending",
    );
    expect(done).toMatchObject({
      status: "succeeded",
      attempts: 1,
      last_status_code: 200,
      next_attempt_at: null,
    });
    expect(done.delivered_at).not.toBeNull();
  });

  it("queues an event to every enabled endpoint subscribed to its type, in the caller's transaction", async () => {
    const triggered = await createEndpoint(t.f, `${t.receiver.url}/t`, ["budget.alert.triggered"]);
    const resolvedOnly = await createEndpoint(t.f, `${t.receiver.url}/r`, ["budget.alert.resolved"]);
    const disabled = await createEndpoint(t.f, `${t.receiver.url}/d`, ["budget.alert.triggered"], {
      enabled: false,
    });
    const other = await t.f.call("other", "POST", "/v1/webhook-endpoints", {
      url: `${t.receiver.url}/globex`,
      events: ["budget.alert.triggered"],
    });
    expect(other.statusCode).toBe(201);

    const eventId = await t.p.database.db.transaction((tx) =>
      enqueueWebhookEvent(tx, {
        organizationId: t.f.acmeId,
        type: "budget.alert.triggered",
        data: sampleAlert(),
      }),
    );
    // Every enabled Acme endpoint subscribed to the type, once each (the earlier tests' too).
    const listed = (await t.f.call("admin", "GET", "/v1/webhook-endpoints")).json().endpoints as {
      url: string;
      enabled: boolean;
      events: string[];
    }[];
    const expected = listed
      .filter((e) => e.enabled && e.events.includes("budget.alert.triggered"))
      .map((e) => new URL(e.url).pathname)
      .sort();
    expect(expected).toContain("/hooks/t");
    const hits = await t.receiver.waitFor(expected.length, (r) => r.json?.id === eventId);
    await new Promise((r) => setTimeout(r, 300));
    const paths = t.receiver.received.filter((r) => r.json?.id === eventId).map((r) => r.path);
    expect(paths.sort()).toEqual(expected);
    expect(paths).not.toContain("/hooks/r");
    expect(paths).not.toContain("/hooks/d");
    expect(paths).not.toContain("/hooks/globex");
    const hit = hits.find((h) => h.path === "/hooks/t");
    expect(hit?.json).toMatchObject({
      type: "budget.alert.triggered",
      organization_id: t.f.acmeId,
      data: { threshold: 80 },
    });
    expect(t.receiver.verify(hit!, triggered.secret).ok).toBe(true);
    expect(await deliveries(t.f, resolvedOnly.endpoint_uuid)).toEqual([]);
    expect(await deliveries(t.f, disabled.endpoint_uuid)).toEqual([]);
  });

  it("sends nothing for an event whose transaction rolls back", async () => {
    await createEndpoint(t.f, `${t.receiver.url}/rollback`, ["budget.alert.triggered"]);
    const before = await countDeliveries(t.p);
    let eventId = "";
    await expect(
      t.p.database.db.transaction(async (tx) => {
        eventId = await enqueueWebhookEvent(tx, {
          organizationId: t.f.acmeId,
          type: "budget.alert.triggered",
          data: sampleAlert(50),
        });
        throw new Error("the alert's cause failed");
      }),
    ).rejects.toThrow("the alert's cause failed");
    expect(eventId).not.toBe("");
    expect(await countDeliveries(t.p)).toBe(before);
    await t.p.api.webhookWorker.runOnce();
    await new Promise((r) => setTimeout(r, 200));
    expect(t.receiver.received.some((r) => r.json?.id === eventId)).toBe(false);
  });

  it("retries a failing receiver with growing delays until it succeeds", async () => {
    const ep = await createEndpoint(t.f, `${t.receiver.url}/flaky`);
    let calls = 0;
    t.receiver.setRespond((r) => (r.path === "/hooks/flaky" && ++calls <= 3 ? 500 : 200));
    try {
      const queued = (
        await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`)
      ).json();
      const hits = await t.receiver.waitFor(4, (r) => r.json?.id === queued.event_id);
      // Base 50 ms: about 50 ms, 200 ms, 1 s between attempts (±20% jitter, plus scheduling).
      const gaps = hits.slice(1).map((h, i) => h.at - (hits[i] as { at: number }).at);
      expect(gaps[0]).toBeGreaterThanOrEqual(35);
      expect(gaps[1]).toBeGreaterThan(gaps[0] as number);
      expect(gaps[2]).toBeGreaterThan(gaps[1] as number);
      expect(gaps[2]).toBeGreaterThanOrEqual(750);
      // Every retry is the same event, same bytes, each freshly signed with the endpoint's secret.
      expect(new Set(hits.map((h) => h.body)).size).toBe(1);
      for (const h of hits) expect(t.receiver.verify(h, ep.secret).ok).toBe(true);
      const done = await waitForDelivery(
        t.f,
        ep.endpoint_uuid,
        queued.delivery_uuid,
        (d) => d.status === "succeeded",
      );
      expect(done).toMatchObject({ attempts: 4, last_status_code: 200, last_error: null });
    } finally {
      t.receiver.setRespond(() => 200);
    }
  });

  it("gives up after 8 attempts, keeps at most 1 kB of the answer, and retries by hand", async () => {
    const ep = await createEndpoint(t.f, `${t.receiver.url}/down`);
    t.receiver.setRespond((r) => (r.path === "/hooks/down" ? 503 : 200));
    try {
      const queued = (
        await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`)
      ).json();
      const id = queued.delivery_uuid as string;
      // Skips the waits (hours with the real base): each attempt is made due at once.
      let d = await waitForDelivery(
        t.f,
        ep.endpoint_uuid,
        id,
        (x) => x.attempts >= 1 && x.last_status_code !== null,
      );
      expect(d.last_status_code).toBe(503);
      expect(d.next_attempt_at).not.toBeNull();
      while (d.status === "pending") {
        await makeDue(t.p);
        await t.p.api.webhookWorker.runOnce();
        d = await waitForDelivery(t.f, ep.endpoint_uuid, id, () => true);
      }
      expect(d).toMatchObject({
        status: "failed",
        attempts: 8,
        last_status_code: 503,
        next_attempt_at: null,
      });
      expect(d.last_error).toBe("error 503");
      expect(t.receiver.received.filter((r) => r.json?.id === queued.event_id)).toHaveLength(8);

      t.receiver.setRespond(() => 200);
      const retry = await t.f.call(
        "admin",
        "POST",
        `/v1/webhook-endpoints/${ep.endpoint_uuid}/deliveries/${id}/retry`,
      );
      expect(retry.statusCode, retry.body).toBe(202);
      expect(retry.json()).toMatchObject({ status: "pending" });
      const ok = await waitForDelivery(t.f, ep.endpoint_uuid, id, (x) => x.status === "succeeded");
      expect(ok).toMatchObject({ attempts: 9, last_status_code: 200 });
    } finally {
      t.receiver.setRespond(() => 200);
    }
  });

  it("keeps at most 1 kB of a failing answer and does not follow redirects", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      if (req.url === "/redirect") res.writeHead(302, { location: "http://169.254.169.254/" }).end();
      else res.writeHead(500).end("x".repeat(5000));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      for (const [path, check] of [
        ["/big", (d: { last_error: string | null }) => expect(d.last_error).toBe("x".repeat(1024))],
        [
          "/redirect",
          (d: { last_error: string | null }) =>
            expect(d.last_error).toMatch(/Redirect to http:\/\/169\.254\.169\.254\/ not followed/),
        ],
      ] as const) {
        const ep = await createEndpoint(t.f, `http://127.0.0.1:${port}${path}`);
        const queued = (
          await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`)
        ).json();
        const d = await waitForDelivery(
          t.f,
          ep.endpoint_uuid,
          queued.delivery_uuid,
          (x) => x.attempts >= 1 && x.last_error !== null,
        );
        check(d);
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("pages the delivery log newest first and filters it by status", async () => {
    const ep = await createEndpoint(t.f, `${t.receiver.url}/log`);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`)).json().event_id,
      );
    await t.receiver.waitFor(3, (r) => ids.includes(r.json?.id ?? ""));
    const res = await t.f.call(
      "admin",
      "GET",
      `/v1/webhook-endpoints/${ep.endpoint_uuid}/deliveries?page_size=2`,
    );
    expect(res.json()).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(res.json().deliveries.map((d: { event_id: string }) => d.event_id)).toEqual([ids[2], ids[1]]);
    const page2 = await t.f.call(
      "admin",
      "GET",
      `/v1/webhook-endpoints/${ep.endpoint_uuid}/deliveries?page_size=2&page=2`,
    );
    expect(page2.json().deliveries.map((d: { event_id: string }) => d.event_id)).toEqual([ids[0]]);
    const failed = await deliveries(t.f, ep.endpoint_uuid, "?status=failed");
    expect(failed).toEqual([]);
  });

  it("two workers never deliver one delivery twice", async () => {
    const ep = await createEndpoint(t.f, `${t.receiver.url}/race`, ["budget.alert.resolved"]);
    // Slow answers: the workers' rounds overlap while deliveries are in flight.
    t.receiver.setRespond(async () => {
      await new Promise((r) => setTimeout(r, 20));
      return 200;
    });
    const { createWebhookWorker } = await import("../../server/webhooks/worker");
    const { webhookKeyring } = await import("../../server/webhooks/secrets");
    const second =
      backend.name === "postgres"
        ? (await import("./harness")).secondProcess(t.p, { WEBHOOK_ALLOW_PRIVATE_URLS: "true" })
        : null;
    const other = second ? await second : null;
    const workers = [
      t.p.api.webhookWorker,
      createWebhookWorker({
        db: (other ?? t.p).database.db,
        keyring: webhookKeyring(t.p.config, t.p.database),
        allowPrivateUrls: true,
        retryBaseSeconds: 0.05,
      }),
    ];
    try {
      const eventIds = await t.p.database.db.transaction(async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < 40; i++)
          out.push(
            await enqueueWebhookEvent(tx, {
              organizationId: t.f.acmeId,
              type: "budget.alert.resolved",
              data: { ...sampleAlert(), state: "resolved" },
            }),
          );
        return out;
      });
      await Promise.all([...workers, ...workers].map((w) => w.runOnce()));
      const hits = await t.receiver.waitFor(40, (r) => r.path === "/hooks/race");
      await new Promise((r) => setTimeout(r, 300));
      const got = t.receiver.received.filter((r) => r.path === "/hooks/race").map((r) => r.json?.id);
      expect(got).toHaveLength(40);
      expect(new Set(got)).toEqual(new Set(eventIds));
      expect(hits.length).toBe(40);
      const log = await deliveries(t.f, ep.endpoint_uuid, "?page_size=100");
      expect(log.every((d) => d.status === "succeeded" && d.attempts === 1)).toBe(true);
    } finally {
      t.receiver.setRespond(() => 200);
      await other?.close();
    }
  });

  it("re-seals secrets sealed under a previous key, and a secret no key opens fails its attempts", async () => {
    const db = t.p.database.db;
    const ep = await createEndpoint(t.f, `${t.receiver.url}/old-key`);
    const previous = makeKeyring(randomBytes(32));
    await db
      .update(webhookEndpoints)
      .set({ secretSealed: sealSigningSecret(previous, ep.endpoint_uuid, "whsec_from_before") })
      .where(eq(webhookEndpoints.endpointUuid, ep.endpoint_uuid));
    const queued = (await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`)).json();
    const failed = await waitForDelivery(
      t.f,
      ep.endpoint_uuid,
      queued.delivery_uuid,
      (d) => d.attempts >= 1 && d.last_error !== null,
    );
    expect(failed.last_error).toMatch(/neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/);
    expect(t.receiver.received.some((r) => r.path === "/hooks/old-key")).toBe(false);

    // Started with the old key as SECRETS_KEY_PREVIOUS: the secret is re-sealed under the current key.
    const current = webhookKeyring(t.p.config, t.p.database);
    const ring = makeKeyring(current.keys.get(current.currentId)!, [previous.keys.get(previous.currentId)!]);
    expect(await resealSigningSecrets(db, ring)).toBe(1);
    const [row] = await db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.endpointUuid, ep.endpoint_uuid));
    expect(sealedWith(row!.secretSealed)).toBe(current.currentId);
    // The next retry (made due now) is signed with the same secret as before.
    await makeDue(t.p);
    t.p.api.webhookWorker.wake();
    const [hit] = await t.receiver.waitFor(1, (r) => r.path === "/hooks/old-key", 20_000);
    expect(t.receiver.verify(hit!, "whsec_from_before").ok).toBe(true);
  });

  it("keeps finished deliveries for 30 days in the log", async () => {
    const ep = await createEndpoint(t.f, `${t.receiver.url}/old`);
    const insert = (status: string, daysAgo: number) =>
      t.p.database.db.execute(sql`insert into webhook_deliveries
        (endpoint_uuid, organization_uuid, event_id, event_type, payload, status, created_at, next_attempt_at)
        values (${ep.endpoint_uuid}, ${t.f.acmeId}, gen_random_uuid(), 'budget.alert.triggered', '{}', ${status},
                now() - make_interval(days => ${daysAgo}), case when ${status} = 'pending' then now() + interval '1 hour' end)`);
    await insert("succeeded", 31);
    await insert("failed", 31);
    await insert("pending", 31);
    await insert("succeeded", 29);
    expect(await purgeOldDeliveries(t.p.database.db)).toBe(2);
    const left = await deliveries(t.f, ep.endpoint_uuid);
    expect(left.map((d) => d.status).sort()).toEqual(["pending", "succeeded"]);
  });

  it("a disabled endpoint's deliveries wait until it is enabled again", async () => {
    const ep = await createEndpoint(t.f, `${t.receiver.url}/paused`, ["budget.alert.triggered"]);
    const eventId = await t.p.database.db.transaction(async (tx) => {
      // Queued while enabled, disabled before any attempt.
      const id = await enqueueWebhookEvent(tx, {
        organizationId: t.f.acmeId,
        type: "budget.alert.triggered",
        data: sampleAlert(100),
      });
      await tx.execute(
        sql`update webhook_endpoints set enabled = false where endpoint_uuid = ${ep.endpoint_uuid}`,
      );
      return id;
    });
    await t.p.api.webhookWorker.runOnce();
    await new Promise((r) => setTimeout(r, 200));
    const paused = (r: ReceivedWebhook) => r.path === "/hooks/paused" && r.json?.id === eventId;
    expect(t.receiver.received.some(paused)).toBe(false);
    const test = await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`);
    expect(test.statusCode).toBe(409);
    const enabled = await t.f.call("admin", "PATCH", `/v1/webhook-endpoints/${ep.endpoint_uuid}`, {
      enabled: true,
    });
    expect(enabled.statusCode).toBe(200);
    await t.receiver.waitFor(1, paused);
    // The worker records the success once the receiver's answer is back: a moment after the receiver
    // saw the request, longer on a busy machine.
    const status = async () =>
      rowsOf<{ status: string }>(
        await t.p.database.db.execute(
          sql`select status from webhook_deliveries where event_id = ${eventId} and endpoint_uuid = ${ep.endpoint_uuid}`,
        ),
      );
    const until = Date.now() + 15_000;
    let rows = await status();
    while (rows[0]?.status === "pending" && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await status();
    }
    expect(rows).toEqual([{ status: "succeeded" }]);
  });
});

describe.each(backends())("webhook SSRF guard on $name", (backend) => {
  // The default: private addresses refused.
  const t = webhookSuite(backend, {});

  it("refuses loopback, private and link-local URLs when an endpoint is saved", async () => {
    for (const url of [
      "http://127.0.0.1/hook",
      "http://localhost:8080/hook",
      "http://10.0.0.7/hook",
      "http://192.168.1.1/hook",
      "http://172.16.5.4/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://0.0.0.0/hook",
    ]) {
      const res = await t.f.call("admin", "POST", "/v1/webhook-endpoints", {
        url,
        events: ["budget.alert.triggered"],
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.message, url).toMatch(/loopback, private or link-local/);
    }
    const ep = await t.f.call("admin", "POST", "/v1/webhook-endpoints", {
      url: "https://93.184.215.14/hook",
      events: ["budget.alert.triggered"],
    });
    expect(ep.statusCode, ep.body).toBe(201);
    const patch = await t.f.call("admin", "PATCH", `/v1/webhook-endpoints/${ep.json().endpoint_uuid}`, {
      url: "http://127.0.0.1:9/",
    });
    expect(patch.statusCode).toBe(400);
  });

  it("refuses them again at delivery time (a name re-pointed after the check)", async () => {
    const ep = (
      await t.f.call("admin", "POST", "/v1/webhook-endpoints", {
        url: "https://93.184.215.14/hook",
        events: ["budget.alert.triggered"],
      })
    ).json();
    // As if its DNS name now resolved to the receiver on loopback.
    await t.p.database.db
      .update(webhookEndpoints)
      .set({ url: t.receiver.url })
      .where(eq(webhookEndpoints.endpointUuid, ep.endpoint_uuid));
    const queued = (await t.f.call("admin", "POST", `/v1/webhook-endpoints/${ep.endpoint_uuid}/test`)).json();
    const d = await waitForDelivery(
      t.f,
      ep.endpoint_uuid,
      queued.delivery_uuid,
      (x) => x.attempts === 1 && x.last_error !== null,
    );
    expect(d).toMatchObject({ status: "pending", last_status_code: null });
    expect(d.last_error).toMatch(/127\.0\.0\.1, a loopback, private or link-local address/);
    expect(t.receiver.received).toHaveLength(0);
  });
  it("does not count a disabled endpoint's overdue delivery as due (no busy wake-ups)", async () => {
    const ep = (
      await t.f.call("admin", "POST", "/v1/webhook-endpoints", {
        url: "https://93.184.215.14/paused",
        events: ["budget.alert.triggered"],
        enabled: false,
      })
    ).json();
    await t.p.database.db.execute(sql`insert into webhook_deliveries
      (endpoint_uuid, organization_uuid, event_id, event_type, payload, next_attempt_at)
      values (${ep.endpoint_uuid}, ${t.f.acmeId}, gen_random_uuid(), 'budget.alert.triggered', '{}', now() - interval '1 minute')`);
    // This product retries after 30 s: nothing else here is due within a second.
    const next = await nextDueInMs(t.p.database.db);
    expect(next === null || next > 1_000, String(next)).toBe(true);
  });
});
