import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { accessTokenOverHttp, runCli, waitFor } from "./cli-process";

// The operator commands on the embedded database while a server serves it: each goes through the
// server's operator API (the running server sees the change at once) and prints what it printed
// on the database itself; once the server has stopped, they work on the database again.

const PORT = 3412;
const API = `http://127.0.0.1:${PORT}`;
const AUTH = `http://localhost:${PORT + 1}`;
const PASSWORD = "operator-cli-password";

const dataDir = mkdtempSync(join(tmpdir(), "eval-console-operator-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe("operator commands on the embedded database", () => {
  it("go through the running server, whose API shows each effect at once, then work on the database", async () => {
    const server = runCli(env, ["serve"]);
    let ingesting = true;
    let sent = 0;
    try {
      await waitFor(() => server.out().includes("Eval Console is running"), 120_000);
      const demoKey = readFileSync(join(dataDir, "demo-ingest-key"), "utf8").trim();
      const { operator_key: operatorKey } = JSON.parse(
        readFileSync(join(dataDir, "api-server.json"), "utf8"),
      );
      const asOperator = { authorization: `Bearer ${operatorKey}` };
      const get = async (path: string, headers: Record<string, string> = asOperator) => {
        const res = await fetch(`${API}${path}`, { headers });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const send = (events: object[]) =>
        fetch(`${API}/v1/usage/events`, {
          method: "POST",
          headers: { "x-api-key": demoKey, "content-type": "application/json" },
          body: JSON.stringify({ events }),
        });
      // The eval services keep sending usage while the operator works.
      const background = (async () => {
        while (ingesting) {
          const res = await send([
            {
              event_id: `cli-bg-${sent}`,
              occurred_at: new Date().toISOString(),
              operation: "generation",
              eval_type: "safety",
            },
          ]);
          if (res.status === 200) sent++;
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      const acme = (await get("/v1/operator/organizations/acme-ai")).body as { organization_uuid: string };

      // price set, with a valid_from in the past: it prices an event of that time sent now.
      const validFrom = new Date(Date.now() - 3_600_000).toISOString();
      const price = await cli(
        "price",
        "set",
        "--org",
        "acme-ai",
        "--operation",
        "cli-op",
        "--eval-type",
        "safety",
        "--unit-price",
        "0.0125",
        "--valid-from",
        validFrom,
      );
      expect(price.code, price.err).toBe(0);
      expect(price.out).toMatch(
        new RegExp(
          `^Price rule [0-9a-f-]{36}: organization ${acme.organization_uuid} operation=cli-op eval_type=safety modality=\\* rule_metric=\\* unit price \\$0\\.0125 from ${validFrom.replace(/\./g, "\\.")}\nNo event of an open cycle changed price\\.$`,
        ),
      );
      const ruleUuid = /Price rule ([0-9a-f-]{36})/.exec(price.out)?.[1];
      const priced = await send([
        {
          event_id: "cli-priced",
          occurred_at: new Date(Date.now() - 600_000).toISOString(),
          operation: "cli-op",
          eval_type: "safety",
          quantity: 2,
        },
      ]);
      expect(await priced.json()).toMatchObject({ accepted: 1 });
      const admin = { authorization: `Bearer ${await tokenOf("admin@acme.test")}` };
      const records = await get("/v1/usage/records?search=cli-op", admin);
      expect(records.body.records).toMatchObject([
        { operation: "cli-op", unit_price: "0.0125", cost: "0.025", price_rule_uuid: ruleUuid },
      ]);
      // A new price from the same time re-rates that event, and says so with the totals.
      const again = await cli(
        "price",
        "set",
        "--org",
        "acme-ai",
        "--operation",
        "cli-op",
        "--eval-type",
        "safety",
        "--unit-price",
        "0.02",
        "--valid-from",
        validFrom,
      );
      expect(again.code, again.err).toBe(0);
      expect(again.out.split("\n").at(-1)).toBe(
        "Re-rated 1 event of the open cycle (1 organization): $0.025 before, $0.04 after.",
      );
      const rerated = await get("/v1/usage/records?search=cli-op", admin);
      expect(rerated.body.records).toMatchObject([{ unit_price: "0.02", cost: "0.04" }]);

      // operator grant: the member's own token is an operator's at once.
      const member = { authorization: `Bearer ${await tokenOf("member@acme.test")}` };
      expect((await get("/v1/operator/ingest-keys", member)).status).toBe(403);
      const grant = await cli("operator", "grant", "member@acme.test");
      expect([grant.code, grant.out]).toEqual([0, "member@acme.test is now a provider operator."]);
      expect((await get("/v1/operator/ingest-keys", member)).status).toBe(200);
      expect(await cli("operator", "grant", "nobody@acme.test")).toMatchObject({
        code: 1,
        err: "No user with email nobody@acme.test.",
      });

      // payment record, on the open cycle.
      const cycles = async () =>
        (await get(`/v1/operator/organizations/acme-ai/billing-cycles`)).body.billing_cycles as {
          billing_cycle_uuid: string;
          start_date: string;
          end_date: string | null;
          status: string;
          paid_usd: string;
        }[];
      const [open] = await cycles();
      const payment = await cli(
        "payment",
        "record",
        "--org",
        "Acme AI",
        "--amount",
        "12.50",
        "--note",
        "cli",
      );
      expect(payment.code, payment.err).toBe(0);
      expect(payment.out).toMatch(
        new RegExp(
          `^Recorded payment [0-9a-f-]{36} of \\$12\\.50 for Acme AI, cycle from ${open?.start_date}\\.$`,
        ),
      );
      const payments = (await get("/v1/operator/organizations/acme-ai/payments")).body.payments;
      expect(payments).toContainEqual(
        expect.objectContaining({
          amount_usd: "12.50",
          note: "cli",
          billing_cycle_uuid: open?.billing_cycle_uuid,
        }),
      );

      // group set.
      const group = await cli(
        "group",
        "set",
        "--org",
        "acme-ai",
        "--name",
        "CLI Group",
        "--prepaid",
        "5",
        "--workspaces",
        "Red Team,Safety Research",
      );
      expect([group.code, group.out]).toEqual([
        0,
        'Group "CLI Group" of Acme AI: prepaid $5.00, workspaces: Red Team, Safety Research.',
      ]);
      const groups = (await get("/v1/operator/organizations/acme-ai/workspace-groups")).body.workspace_groups;
      expect(groups).toContainEqual(
        expect.objectContaining({
          name: "CLI Group",
          prepaid_usd: "5.00",
          workspaces: ["Red Team", "Safety Research"],
        }),
      );

      // cycle close (at tomorrow, opening the next), and the refusals' one line and status.
      expect(await cli("cycle", "open", "--org", "acme-ai")).toMatchObject({
        code: 1,
        err: `A cycle is already open (since ${open?.start_date}); close it first.`,
      });
      const close = await cli("cycle", "close", "--org", "acme-ai", "--end", day(1));
      expect(close.code, close.err).toBe(0);
      expect(close.out).toMatch(
        new RegExp(
          `^Closed billing cycle ${open?.billing_cycle_uuid} of Acme AI: ${open?.start_date} to ${day(1)}\\. Opened [0-9a-f-]{36} from ${day(1)}\\.$`,
        ),
      );
      const [next, closed] = await cycles();
      expect(closed).toMatchObject({
        billing_cycle_uuid: open?.billing_cycle_uuid,
        status: "closed",
        end_date: day(1),
      });
      expect(next).toMatchObject({ status: "open", start_date: day(1), end_date: null });

      // audit purge, events months, workspace restore (refused), bad arguments.
      expect(await cli("audit", "purge")).toMatchObject({
        code: 0,
        out: "Purged 0 audit log entries older than 400 days.",
      });
      const months = await cli("events", "months");
      expect(months.code, months.err).toBe(0);
      expect(months.out).toContain(`${day(0).slice(0, 7)}  attached  usage_events_y${day(0).slice(0, 4)}m`);
      expect(await cli("events", "archive", "--month", "1999-01")).toMatchObject({
        code: 1,
        err: "No partition holds 1999-01.",
      });
      expect(await cli("workspace", "restore", "00000000-0000-4000-8000-000000000000")).toMatchObject({
        code: 1,
        err: "Workspace not found.",
      });
      expect(
        (await cli("price", "set", "--unit-price", "1", "--valid-from", "0001-01-01T00:00:00Z")).code,
      ).toBe(2);
      // price awaiting: the demo's own catch-all price leaves nothing awaiting.
      expect(await cli("price", "awaiting", "--org", "acme-ai")).toMatchObject({
        code: 0,
        out: expect.stringMatching(/^No usage of .+ awaits pricing\.$/),
      });
      expect((await cli("price", "awaiting")).code).toBe(2);
      expect((await cli("payment", "record", "--org", "acme-ai", "--amount", "0")).code).toBe(2);

      // Ingestion went on throughout, and none of the commands opened the database behind the server.
      ingesting = false;
      await background;
      expect(sent).toBeGreaterThan(0);
      const readyz = await get("/readyz", {});
      expect(readyz.body).toMatchObject({ status: "ready" });
    } finally {
      ingesting = false;
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    }

    // Stopped: the commands work on the database itself, with the same lines.
    const revoke = await cli("operator", "revoke", "member@acme.test");
    expect([revoke.code, revoke.out]).toEqual([0, "member@acme.test is no longer a provider operator."]);
    const again = await cli("group", "set", "--org", "acme-ai", "--name", "CLI Group", "--prepaid", "7.5");
    expect([again.code, again.out]).toEqual([
      0,
      'Group "CLI Group" of Acme AI: prepaid $7.50, workspaces: Red Team, Safety Research.',
    ]);
    expect(await cli("cycle", "open", "--org", "acme-ai")).toMatchObject({
      code: 1,
      err: `A cycle is already open (since ${day(1)}); close it first.`,
    });
  }, 420_000);
});
