// "Explain this charge" (GET /v1/usage/explain) on both databases: from a cycle's total down to
// every event, each node's lines and parts add up to its total to the micro-dollar (on every page),
// every part's cost is the total of the node it opens, the top is the billing cycle's total_cost,
// rule lines are quantity × unit price exactly across two versions of a rule, adjustments are lines
// of their own with their notes, and archived events still add up (as an unitemized line).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import type { ExplainNode, UsageExplain } from "../../contract/usage-explain";
import { setGroup } from "../../server/metering/billing/billing";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { archiveMonth, restoreMonth } from "../../server/metering/shared/partitions";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle, PAST, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

const sum = (values: string[]) => values.reduce((t, v) => t + parseUsd(v), 0n);

/** The query string that opens a node. */
function queryOf(cycle: string, n: ExplainNode, page = 1, pageSize = 50) {
  const q = new URLSearchParams({ billing_cycle_uuid: cycle, level: n.level });
  if (n.group !== null) q.set("group", n.group);
  if (n.workspace_uuid !== null) q.set("workspace_uuid", n.workspace_uuid);
  if (n.eval_run_uuid !== null) q.set("eval_run_uuid", n.eval_run_uuid);
  if (n.usage_event_uuid !== null) q.set("usage_event_uuid", n.usage_event_uuid);
  q.set("page", String(page));
  q.set("page_size", String(pageSize));
  return q.toString();
}

describe.each(backends())("explain this charge on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let march = "";
  let safety = "";
  let redTeam = "";

  const get = async (query: string): Promise<UsageExplain> => {
    const res = await fx.call("admin", "GET", `/v1/usage/explain?${query}`);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return res.json();
  };

  /**
   * Opens the node on every page (pages of `pageSize`) and checks its sums, then each part's node
   * the same way; every node visited, by level.
   */
  async function walk(n: ExplainNode, pageSize: number, seen: Map<string, number>): Promise<UsageExplain> {
    seen.set(n.level, (seen.get(n.level) ?? 0) + 1);
    const first = await get(queryOf(march, n, 1, pageSize));
    const total = parseUsd(first.total);
    expect(sum(first.lines.map((l) => l.cost)), `lines of ${first.label}`).toBe(total);
    for (const l of first.lines)
      if (l.kind === "rule")
        expect(parseUsd(l.cost)).toBe(BigInt(l.quantity) * parseUsd(l.unit_price ?? "x"));
    const pages = Math.max(1, Math.ceil(first.parts_count / pageSize));
    let seenParts = 0;
    for (let page = 1; page <= pages; page++) {
      const a = page === 1 ? first : await get(queryOf(march, n, page, pageSize));
      expect(a.total).toBe(first.total);
      expect(a.earlier.parts).toBe(seenParts);
      const shown = sum(a.parts.map((x) => x.cost));
      // An event has lines, no parts.
      if (a.parts_level !== null)
        expect(parseUsd(a.earlier.cost) + shown + parseUsd(a.later.cost), `${a.label} page ${page}`).toBe(
          total,
        );
      expect(a.earlier.parts + a.parts.length + a.later.parts).toBe(a.parts_count);
      seenParts += a.parts.length;
      for (const part of a.parts) {
        expect(sum(part.lines.map((l) => l.cost)), `lines of part ${part.label}`).toBe(parseUsd(part.cost));
        if (!part.node) continue;
        const child = await walk(part.node, pageSize, seen);
        expect(child.total, `${a.label} › ${part.label}`).toBe(part.cost);
        expect(child.lines).toEqual(part.lines);
        expect(child.path.slice(0, -1)).toEqual(a.path.slice(0, child.path.length - 1));
      }
    }
    expect(seenParts).toBe(first.parts_count);
    return first;
  }

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    const db = p.database.db;
    // Generation: version 1 at $0.0125 until March 15, version 2 at $0.013579 from then on.
    await setPriceRule(db, { operation: "generation", unitPrice: "0.0125", validFrom: PAST });
    await setPriceRule(db, {
      operation: "generation",
      unitPrice: "0.013579",
      validFrom: new Date("2026-03-15T00:00:00Z"),
    });
    await setPriceRule(db, { operation: "scoring", unitPrice: "0.000123", validFrom: PAST });
    safety = await fx.idOf("Safety Research");
    redTeam = await fx.idOf("Red Team");
    await setGroup(db, fx.acmeId, { name: "Research", prepaidMicros: 1_000_000n, workspaces: [safety] });
    const at = (day: number, hour = 12) =>
      `2026-03-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00Z`;
    let n = 0;
    const ev = (o: Record<string, unknown>) => ({ event_id: `x-${n++}`, eval_type: "safety", ...o });
    await sendAsOperator(p, fx.acmeId, [
      ev({
        occurred_at: at(2),
        operation: "generation",
        quantity: 3,
        workspace_uuid: safety,
        eval_run_uuid: "run-a",
      }),
      ev({
        occurred_at: at(20),
        operation: "generation",
        quantity: 5,
        workspace_uuid: safety,
        eval_run_uuid: "run-a",
      }),
      ev({
        occurred_at: at(21),
        operation: "scoring",
        quantity: 7,
        workspace_uuid: safety,
        eval_run_uuid: "run-a",
      }),
      ev({
        occurred_at: at(4),
        operation: "scoring",
        quantity: 11,
        workspace_uuid: safety,
        eval_run_uuid: "run-b",
      }),
      ev({ occurred_at: at(5), operation: "generation", quantity: 2, workspace_uuid: safety }),
      ...[1, 2, 3].map((h) =>
        ev({
          occurred_at: at(6, h),
          operation: "generation",
          workspace_uuid: redTeam,
          eval_run_uuid: "run-c",
        }),
      ),
      ev({
        occurred_at: at(7),
        operation: "scoring",
        workspace_uuid: redTeam,
        cost: "-300",
        notes: "Credit: volume discount",
      }),
      ev({ occurred_at: at(8), operation: "scoring", quantity: 4, eval_run_uuid: "run-d" }),
      ev({ occurred_at: at(9), operation: "scoring", cost: "5.000001", notes: "Late usage from February" }),
      // April: another cycle.
      ev({ occurred_at: "2026-04-02T00:00:00Z", operation: "generation", workspace_uuid: safety }),
    ]);
    march = await addCycle(p, fx.acmeId, "2026-03-01", "2026-04-01");
    await addCycle(p, fx.acmeId, "2026-04-01", null);
  });
  afterAll(async () => p?.dispose());

  const top: ExplainNode = {
    level: "cycle",
    group: null,
    workspace_uuid: null,
    eval_run_uuid: null,
    usage_event_uuid: null,
  };

  it("adds up at every level and on every page, down to each event, from the cycle's total_cost", async () => {
    const cycleRes = await fx.call(
      "admin",
      "GET",
      `/v1/accounts/organization/billingcycles?billing_cycle_uuid=${march}`,
    );
    const cycle = cycleRes.json();
    for (const pageSize of [50, 2]) {
      const seen = new Map<string, number>();
      const root = await walk(top, pageSize, seen);
      expect(root.total).toBe(cycle.total_cost);
      expect(Object.fromEntries(seen)).toEqual({ cycle: 1, group: 2, workspace: 3, eval_run: 7, event: 11 });
    }
    const root = await get(queryOf(march, top));
    expect(root.path).toEqual([{ label: "Total Cost", node: top }]);
    expect(root.parts.map((x) => [x.label, x.cost])).toEqual([
      ["Research", cycle.workspace_groups[0].total_cost],
      ["Other", cycle.workspace_groups[1].total_cost],
      ["No Workspace", cycle.unattributed_cost],
    ]);
  });

  it("shows each rule version's arithmetic and each adjustment with its notes", async () => {
    const run = await get(
      queryOf(march, { ...top, level: "eval_run", workspace_uuid: safety, eval_run_uuid: "run-a" }),
    );
    expect(run.path.map((c) => c.label)).toEqual(["Total Cost", "Research", "Safety Research", "run-a"]);
    expect(run.lines.map((l) => [l.price_rule_version, l.quantity, l.unit_price, l.cost])).toEqual([
      [2, 5, "0.013579", "0.067895"],
      [1, 3, "0.0125", "0.0375"],
      [1, 7, "0.000123", "0.000861"],
    ]);
    expect(run.total).toBe("0.106256");
    const other = await get(queryOf(march, { ...top, level: "group", group: "default" }));
    expect(other.label).toBe("Other");
    const red = other.parts.find((x) => x.label === "Red Team");
    expect(red?.lines.map((l) => [l.kind, l.cost, l.notes])).toEqual([
      ["rule", "0.0375", null],
      ["adjustment", "-300.00", "Credit: volume discount"],
    ]);
    const none = await get(queryOf(march, { ...top, level: "workspace" }));
    expect(none.label).toBe("No Workspace");
    expect(none.parts.map((x) => x.label)).toEqual(["No eval run", "run-d"]);
    const event = await get(
      queryOf(march, { ...top, level: "event", usage_event_uuid: none.lines[1]?.usage_event_uuid ?? null }),
    );
    expect(event.path.map((c) => c.label)).toEqual([
      "Total Cost",
      "No Workspace",
      "No eval run",
      "Usage event",
    ]);
    expect(event.lines).toMatchObject([
      { kind: "adjustment", cost: "5.000001", notes: "Late usage from February" },
    ]);
    expect(event.parts_level).toBeNull();
  });

  it("refuses what names no node, in words, and keeps other organizations out", async () => {
    const cases: [string, number, RegExp][] = [
      ["level=group", 400, /needs group/],
      ["level=cycle&group=Research", 400, /not a parameter of level cycle/],
      ["level=event", 400, /needs usage_event_uuid/],
      ["level=workspace&workspace_uuid=nope", 400, /workspace_uuid must be a UUID/],
      ["level=planet", 400, /level must be one of/],
      ["page_size=0", 400, /page_size/],
      ["page_size=201", 400, /page_size/],
      [`level=group&group=Nobody&billing_cycle_uuid=${march}`, 404, /No workspace group/],
      [`level=eval_run&eval_run_uuid=zzz&billing_cycle_uuid=${march}`, 404, /No usage of that eval run/],
      [
        `level=event&usage_event_uuid=${crypto.randomUUID()}&billing_cycle_uuid=${march}`,
        404,
        /No such usage event/,
      ],
      [
        `level=workspace&workspace_uuid=${crypto.randomUUID()}&billing_cycle_uuid=${march}`,
        404,
        /No such workspace/,
      ],
    ];
    for (const [query, status, message] of cases) {
      const res = await fx.call("admin", "GET", `/v1/usage/explain?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(status);
      expect(res.json().error.message, query).toMatch(message);
    }
    expect((await fx.call("member", "GET", "/v1/usage/explain")).statusCode).toBe(403);
    expect(
      (await fx.call("adminKey", "GET", `/v1/usage/explain?billing_cycle_uuid=${march}`)).statusCode,
    ).toBe(200);
    const outsider = await fx.call("other", "GET", `/v1/usage/explain?billing_cycle_uuid=${march}`);
    expect(outsider.statusCode).toBe(404);
    const own = await fx.call("other", "GET", `/v1/usage/explain?level=workspace&workspace_uuid=${safety}`);
    expect(own.statusCode).toBe(404);
    const ownTotal = (await fx.call("other", "GET", "/v1/usage/explain")).json();
    expect(ownTotal).toMatchObject({ total: "0.00", events: 0 });
  });

  it("still adds up when a month's events are archived: the bill's usage is an unitemized line", async () => {
    const before = await get(queryOf(march, top));
    expect(await archiveMonth(p.database.db, "2026-03")).toMatchObject({ status: "archived" });
    try {
      const seen = new Map<string, number>();
      const root = await walk(top, 50, seen);
      expect(root.total).toBe(before.total);
      expect(root.lines.map((l) => l.kind)).toEqual(["unitemized"]);
      const ws = await get(queryOf(march, { ...top, level: "workspace", workspace_uuid: safety }));
      expect(ws.parts.map((x) => [x.label, x.node])).toEqual([["Archived events (not itemized)", null]]);
    } finally {
      await restoreMonth(p.database.db, "2026-03");
    }
  });
});
