import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProduct, type Product } from "../../server/app";
import { auditLog } from "../../server/db/schema";
import { loadConfig } from "../../server/platform/config";
import { accessToken, backends, PASSWORD, signIn } from "./harness";
import { rowsOf } from "./tenants";

// POST /v1/operator/demo/seed: the CLI's `seed` over HTTP, on a database without the demo: it
// makes the demo (a password it chose and the ingestion key in that answer only), then its usage,
// with progress lines when asked for NDJSON; operators only, audited, bad input a 400 that writes
// nothing.

describe.each(backends())("demo seed through the operator API on $name", (backend) => {
  let p: Product;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const opened = await backend.open();
    drop = opened.drop;
    const config = loadConfig({ DEMO_PASSWORD: PASSWORD, CONSOLE_DIR: "./tests/server/fixtures/console" });
    // Not seeded: the route makes the demo.
    p = await buildProduct(config, pino({ level: "silent" }), opened.database);
  });
  afterAll(async () => {
    await p?.close();
    await drop?.();
  });

  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const seed = (payload: unknown, headers: Record<string, string> = {}) =>
    p.api.app.inject({
      method: "POST",
      url: "/v1/operator/demo/seed",
      headers: { ...local(), ...headers },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });
  const counts = async () => {
    const [row] = rowsOf<{ n: string }>(
      await p.database.db.execute(
        sql`select (select count(*) from identity.organization) || ',' || (select count(*) from usage_events) || ',' || (select count(*) from audit_log) as n`,
      ),
    );
    return row?.n;
  };

  it("refuses bad bodies with a 400 before anything is made", async () => {
    const before = await counts();
    const cases: [unknown, RegExp][] = [
      [{ events: -1 }, /events must be at least 0/],
      [{ events: 1.5 }, /events must be a whole number/],
      [{ events: "10" }, /events must be a whole number/],
      [{ events: 100_000_001 }, /events must be at most 100000000/],
      [{ seed: "abc" }, /seed must be a whole number/],
      [{ seed: 2 ** 32 }, /seed must be a whole number/],
      [{ seed: "a\u0000b" }, /NUL|seed/],
      [{ extra: true }, /Unknown body field/],
      [[1], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await seed(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(message);
    }
    const text = await p.api.app.inject({
      method: "POST",
      url: "/v1/operator/demo/seed",
      headers: { ...local(), "content-type": "text/plain" },
      payload: "events=1",
    });
    expect(text.statusCode).toBe(400);
    expect(await counts()).toBe(before);
    const none = await p.api.app.inject({ method: "POST", url: "/v1/operator/demo/seed" });
    expect(none.statusCode).toBe(401);
  });

  it("creates the demo once, with its ingestion key in that answer only, and never DEMO_PASSWORD", async () => {
    const first = await seed({ events: 300 });
    expect(first.statusCode, first.body).toBe(200);
    const r = first.json();
    // The password is DEMO_PASSWORD's, the operator's own secret: not in the answer (a generated
    // one would be, this once).
    expect(first.body).not.toContain(PASSWORD);
    expect(r).toMatchObject({
      created: true,
      reason: null,
      users: ["admin@acme.test", "member@acme.test", "newcomer@acme.test"],
      password: null,
      ingest_key: expect.stringMatching(/^eci_/),
      usage: { seeded: true, reason: null, generated: 300, accepted: expect.any(Number) },
    });
    expect(r.usage.accepted).toBeGreaterThan(290);
    // The demo signs in, and its key sends usage.
    await signIn(p, "admin@acme.test");
    const sent = await p.api.app.inject({
      method: "POST",
      url: "/v1/usage/events",
      headers: { "x-api-key": r.ingest_key },
      payload: {
        events: [
          {
            event_id: "via-demo-key",
            occurred_at: new Date().toISOString(),
            operation: "generation",
            eval_type: "safety",
          },
        ],
      },
    });
    expect(sent.json()).toMatchObject({ accepted: 1 });

    // What exists is left alone: the demo, and the usage it has already.
    const again = await seed({ events: 300 });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({
      created: false,
      reason: "the demo organization already exists",
      users: r.users,
      password: null,
      ingest_key: null,
      usage: {
        seeded: false,
        reason: "the demo usage already exists",
        generated: 0,
        accepted: 0,
        seconds: 0,
      },
    });
    const audits = await p.database.db
      .select({ source: auditLog.source, after: auditLog.after })
      .from(auditLog)
      .where(eq(auditLog.action, "demo.seeded"))
      .orderBy(auditLog.id);
    expect(audits[0]).toMatchObject({ source: "cli", after: { created: true, events_generated: 300 } });
    expect(JSON.stringify(audits)).not.toContain(PASSWORD);
  }, 120_000);

  it("streams progress lines, then the result, when asked for NDJSON", async () => {
    const res = await seed({ events: 12_000, seed: "7" }, { accept: "application/x-ndjson" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/application\/x-ndjson/);
    const lines = res.body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, -1)).toEqual([
      { progress: { done: 10_000, total: 12_000 } },
      { progress: { done: 12_000, total: 12_000 } },
    ]);
    expect(lines.at(-1).result).toMatchObject({ created: false, usage: { seeded: true, generated: 12_000 } });
  }, 180_000);

  // A second call while one runs is refused; the first one finishes. Over HTTP, so the first is
  // seen running (its first progress line) before the second is sent: on PostgreSQL, since the
  // in-memory embedded database in this thread holds it while a batch is stored.
  it.runIf(backend.name === "postgres")(
    "runs one seed at a time",
    async () => {
      const address = await p.api.app.listen({ port: 0, host: "127.0.0.1" });
      const streamed = await fetch(`${address}/v1/operator/demo/seed`, {
        method: "POST",
        headers: { ...local(), accept: "application/x-ndjson", "content-type": "application/json" },
        body: JSON.stringify({ events: 20_000, seed: 8 }),
      });
      const reader = (streamed.body as ReadableStream<Uint8Array>).getReader();
      let text = "";
      while (!text.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(JSON.parse(text.split("\n")[0] ?? "")).toEqual({ progress: { done: 10_000, total: 20_000 } });
      const second = await seed({ events: 1, seed: 9 });
      expect(second.statusCode).toBe(409);
      expect(second.json().error.message).toMatch(/already running/);
      for (let r = await reader.read(); !r.done; r = await reader.read())
        text += new TextDecoder().decode(r.value);
      expect(text).toContain('"result"');
    },
    180_000,
  );

  it("refuses customers", async () => {
    const token = await accessToken(p as never, "admin@acme.test");
    const res = await seed({ events: 0 }, { authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(403);
  });
});
