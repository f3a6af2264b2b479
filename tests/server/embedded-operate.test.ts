import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { accessTokenOverHttp, runCli, waitFor } from "./cli-process";

// The embedded default as operated: while the server serves and usage keeps coming in, every
// operator command goes through it and its effect shows in the API at once; then the server is
// killed with SIGKILL mid-ingestion and started again on the same directory, and every
// acknowledged event and every command's effect is still there.

const PORT = 3420;
const API = `http://127.0.0.1:${PORT}`;
const AUTH = `http://localhost:${PORT + 1}`;
const PASSWORD = "embedded-operate-password";

const dataDir = mkdtempSync(join(tmpdir(), "eval-console-operate-"));
const work = mkdtempSync(join(tmpdir(), "eval-console-operate-files-"));
afterAll(() => {
  for (const d of [dataDir, work]) rmSync(d, { recursive: true, force: true });
});

const env = {
  DATA_DIR: dataDir,
  PORT: String(PORT),
  AUTH_PORT: String(PORT + 1),
  DEMO_PASSWORD: PASSWORD,
  DEMO_EVENTS: "200",
};

async function cli(...args: string[]) {
  const r = runCli(env, args);
  const code = await r.exited;
  return { code, out: r.out().trim(), err: r.err().trim() };
}

/** A bearer token of a demo user, signed in through the hosted form as a browser would. */
const tokenOf = (email: string) => accessTokenOverHttp(AUTH, email, PASSWORD);

type Json = Record<string, unknown>;
const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Json };
};

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const event = (id: string, operation: string) => ({
  event_id: id,
  occurred_at: new Date(Date.now() - 60_000).toISOString(),
  operation,
  eval_type: "safety",
});

/** Starts `serve` and waits until it listens; its own pid (tsx runs it as a child) from api-server.json. */
async function start() {
  const server = runCli(env, ["serve"]);
  await waitFor(
    () => server.out().includes("Eval Console is running") || server.child.exitCode !== null,
    180_000,
  );
  expect(server.out(), server.err()).toContain("Eval Console is running");
  const running = JSON.parse(readFileSync(join(dataDir, "api-server.json"), "utf8")) as {
    pid: number;
    operator_key: string;
  };
  return { server, pid: running.pid, operator: { authorization: `Bearer ${running.operator_key}` } };
}

/**
 * Sends a batch of 5 new events every 100 ms with the key, counting the events whose acceptance
 * the server acknowledged; a call that fails (the server killed under it) acknowledges nothing.
 */
function ingestLoop(key: string) {
  let on = true;
  let acked = 0;
  let n = 0;
  const done = (async () => {
    while (on) {
      const batch = Array.from({ length: 5 }, () => event(`bg-${n++}`, "restart-bg"));
      try {
        const res = await fetch(`${API}/v1/usage/events`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ events: batch }),
        });
        if (res.status === 200) acked += ((await res.json()) as { accepted: number }).accepted;
      } catch {
        // Not acknowledged.
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    acked: () => acked,
    async stop() {
      on = false;
      await done;
    },
  };
}

describe("operating the embedded database", () => {
  it("runs every operator command through the serving server while it ingests, and keeps everything across a SIGKILL", async () => {
    let { server, pid, operator } = await start();
    const demoKey = readFileSync(join(dataDir, "demo-ingest-key"), "utf8").trim();
    expect(demoKey).not.toBe("");
    const loop = ingestLoop(demoKey);
    const effects: Record<string, unknown> = {};
    const file = join(work, "usage.ndjson");
    try {
      const admin = { authorization: `Bearer ${await tokenOf("admin@acme.test")}` };
      const acme = (await call("GET", "/v1/operator/organizations/acme-ai", operator)).body as {
        organization_uuid: string;
      };
      const org = acme.organization_uuid;

      // usage import: a small NDJSON file, counted through the usage API; again, only duplicates.
      writeFileSync(
        file,
        `${Array.from({ length: 50 }, (_, i) => JSON.stringify(event(`imp-${i}`, "restart-import"))).join("\n")}\n`,
      );
      const imported = await cli("usage", "import", file, "--org", "acme-ai");
      expect(imported.code, imported.err).toBe(0);
      expect(imported.out).toMatch(
        new RegExp(
          `^Imported ${file.replace(/[.\\/]/g, "\\$&")} into Acme AI: 50 accepted, 0 duplicates, 0 rejected \\(50 events in`,
        ),
      );
      const again = await cli("usage", "import", file, "--org", "acme-ai");
      expect(again.out).toContain(": 0 accepted, 50 duplicates, 0 rejected");
      // A rejected line: listed on stderr with its line, exit 1; an unknown organization: one line.
      const bad = join(work, "bad.ndjson");
      writeFileSync(bad, `${JSON.stringify(event("imp-0", "restart-import"))}\n{oops}\n`);
      const rejected = await cli("usage", "import", bad, "--org", "acme-ai");
      expect(rejected.code).toBe(1);
      expect(rejected.err).toMatch(/^line 2: line 2: not valid JSON/);
      expect(rejected.out).toContain(": 0 accepted, 1 duplicates, 1 rejected (2 events in");
      const nowhere = await cli("usage", "import", file, "--org", "no-such-org");
      expect([nowhere.code, nowhere.out]).toEqual([1, ""]);
      expect(nowhere.err).toMatch(/^No organization/);

      // price set, for Acme, from an hour ago.
      const price = await cli(
        "price",
        "set",
        "--org",
        "acme-ai",
        "--operation",
        "restart-priced",
        "--unit-price",
        "0.0125",
        "--valid-from",
        new Date(Date.now() - 3_600_000).toISOString(),
      );
      expect(price.code, price.err).toBe(0);
      const ruleUuid = /Price rule ([0-9a-f-]{36})/.exec(price.out)?.[1];
      const rules = async () =>
        (
          (await call("GET", `/v1/operator/price-rules?organization_uuid=${org}`, operator)).body
            .price_rules as Json[]
        )
          .filter((r) => r.price_rule_uuid === ruleUuid)
          .map((r) => [r.operation, r.unit_price_usd]);
      expect(await rules()).toEqual([["restart-priced", "0.0125"]]);

      // operator grant: the member's own token reaches the operator API at once.
      const grant = await cli("operator", "grant", "member@acme.test");
      expect([grant.code, grant.out]).toEqual([0, "member@acme.test is now a provider operator."]);
      const memberIsOperator = async () =>
        (
          await call("GET", "/v1/operator/ingest-keys", {
            authorization: `Bearer ${await tokenOf("member@acme.test")}`,
          })
        ).status;
      expect(await memberIsOperator()).toBe(200);

      // workspace restore: Red Team deleted through the API, brought back by the command.
      const workspaces = (await call("GET", "/v1/workspaces/", admin)).body as unknown as Json[];
      const redTeam = workspaces.find((w) => w.name === "Red Team")?.workspace_uuid as string;
      expect((await call("DELETE", `/v1/workspaces/${redTeam}`, admin)).status).toBe(204);
      const restore = await cli("workspace", "restore", redTeam);
      expect(restore.code, restore.err).toBe(0);
      const deletedAt = async () => (await call("GET", `/v1/workspaces/${redTeam}`, admin)).body.deleted_at;
      expect(await deletedAt()).toBeNull();

      // cycle close at today's start, opening the next: usage sent now goes on into the open cycle.
      const cycles = async () =>
        (
          (await call("GET", "/v1/operator/organizations/acme-ai/billing-cycles", operator)).body
            .billing_cycles as Json[]
        ).map((c) => [c.start_date, c.end_date, c.status]);
      const [open] = await cycles();
      const close = await cli("cycle", "close", "--org", "acme-ai", "--end", day(0));
      expect(close.code, close.err).toBe(0);
      const afterClose = await cycles();
      expect(afterClose.slice(0, 2)).toEqual([
        [day(0), null, "open"],
        [open?.[0], day(0), "closed"],
      ]);

      // payment record, on the open cycle.
      const payment = await cli(
        "payment",
        "record",
        "--org",
        "acme-ai",
        "--amount",
        "12.50",
        "--note",
        "restart",
      );
      expect(payment.code, payment.err).toBe(0);
      const payments = async () =>
        ((await call("GET", "/v1/operator/organizations/acme-ai/payments", operator)).body.payments as Json[])
          .filter((p) => p.note === "restart")
          .map((p) => p.amount_usd);
      expect(await payments()).toEqual(["12.50"]);

      // group set.
      const group = await cli(
        "group",
        "set",
        "--org",
        "acme-ai",
        "--name",
        "Restart Group",
        "--prepaid",
        "5",
      );
      expect(group.code, group.err).toBe(0);
      const groups = async () =>
        (
          (await call("GET", "/v1/operator/organizations/acme-ai/workspace-groups", operator)).body
            .workspace_groups as Json[]
        )
          .filter((g) => g.name === "Restart Group")
          .map((g) => g.prepaid_usd);
      expect(await groups()).toEqual(["5.00"]);

      // events months: the command and the API list this month's partition, attached.
      const months = await cli("events", "months");
      expect(months.code, months.err).toBe(0);
      expect(months.out).toContain(`${day(0).slice(0, 7)}  attached`);
      const partitions = async () =>
        ((await call("GET", "/v1/operator/event-partitions", operator)).body.months as Json[])
          .filter((m) => m.month === day(0).slice(0, 7))
          .map((m) => m.archived);
      expect(await partitions()).toEqual([false]);

      // audit purge: nothing is older than the retention; today's entries stay readable.
      const purge = await cli("audit", "purge");
      expect([purge.code, purge.out]).toEqual([0, "Purged 0 audit log entries older than 400 days."]);
      const importAudit = async () =>
        ((await call("GET", "/v1/audit-log?action=usage.imported", admin)).body.entries as Json[]).length;
      expect(await importAudit()).toBe(3);

      // ingest-key create: its token sends usage at once.
      const created = await cli("ingest-key", "create", "--org", "acme-ai", "--name", "restart key");
      expect(created.code, created.err).toBe(0);
      const newKey = /eci_[A-Za-z0-9_-]{43}/.exec(created.out)?.[0] ?? "";
      const sendWith = async (key: string, id: string) =>
        (await call("POST", "/v1/usage/events", { "x-api-key": key }, { events: [event(id, "restart-key")] }))
          .body;
      expect(await sendWith(newKey, "key-1")).toMatchObject({ accepted: 1 });

      // seed: the demo exists; 300 events asked for where 200 are, so 100 more are stored.
      const seeded = await cli("seed", "--events", "300");
      expect(seeded.code, seeded.err).toBe(0);
      expect(seeded.out).toContain("Demo organization: the demo organization already exists.");
      expect(seeded.out).toContain("Demo usage: 100 events stored (of 300 generated)");

      // What the usage API counts, for after the restart.
      const count = async (operation: string) => {
        const cycle = (
          (await call("GET", "/v1/operator/organizations/acme-ai/billing-cycles", operator)).body
            .billing_cycles as Json[]
        ).find((c) => c.end_date === null)?.billing_cycle_uuid;
        const r = await call(
          "GET",
          `/v1/usage/records?billing_cycle_uuid=${cycle}&operation=${operation}&page_size=1`,
          { authorization: `Bearer ${await tokenOf("admin@acme.test")}` },
        );
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.total as number;
      };
      expect(await count("restart-import")).toBe(50);
      expect(loop.acked()).toBeGreaterThan(0);

      // SIGKILL while the loop is still sending; then no more.
      process.kill(pid, "SIGKILL");
      await server.exited;
      await loop.stop();
      const acked = loop.acked();
      expect(acked).toBeGreaterThan(100);

      ({ server, pid, operator } = await start());
      // Every acknowledged event is there (a batch in flight at the kill may be there too).
      const stored = await count("restart-bg");
      expect(stored).toBeGreaterThanOrEqual(acked);
      expect(stored).toBeLessThanOrEqual(acked + 5);
      expect(await count("restart-import")).toBe(50);
      expect(await count("restart-key")).toBe(1);
      expect(await rules()).toEqual([["restart-priced", "0.0125"]]);
      expect(await memberIsOperator()).toBe(200);
      expect(await deletedAt()).toBeNull();
      expect((await cycles()).slice(0, 2)).toEqual(afterClose.slice(0, 2));
      expect(await payments()).toEqual(["12.50"]);
      expect(await groups()).toEqual(["5.00"]);
      expect(await partitions()).toEqual([false]);
      expect(await importAudit()).toBe(3);
      expect(await sendWith(newKey, "key-2")).toMatchObject({ accepted: 1 });
      // And through the restarted server, the commands find what they made.
      const reimport = await cli("usage", "import", file, "--org", "acme-ai");
      expect(reimport.out).toContain(": 0 accepted, 50 duplicates, 0 rejected");
      const reseed = await cli("seed", "--events", "300");
      expect(reseed.out).toContain("Demo usage: nothing to do, the demo usage already exists.");
      effects.done = true;
    } finally {
      await loop.stop();
      if (server.child.exitCode === null) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // Already gone.
        }
        await server.exited;
      }
    }
    expect(effects.done).toBe(true);

    // Stopped: the same commands work on the database itself, and print the same lines.
    const direct = await cli("usage", "import", file, "--org", "acme-ai");
    expect(direct.code, direct.err).toBe(0);
    expect(direct.out).toContain("into Acme AI: 0 accepted, 50 duplicates, 0 rejected");
    const directSeed = await cli("seed", "--events", "300");
    expect([directSeed.code, directSeed.out]).toEqual([
      0,
      "Demo organization: the demo organization already exists.\nDemo usage: nothing to do, the demo usage already exists.",
    ]);
  }, 900_000);
});
