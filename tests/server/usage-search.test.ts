// Records search: the same matches as a per-column, case-insensitive substring test (LIKE's
// wildcards and escape character taken literally; workspace names, "Unknown Workspace" included),
// in the records, the summary and the export, and served by the trigram index.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageEvents } from "../../server/db/schema";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { NO_FILTERS } from "../../server/metering/usage/filters";
import { searchFilter, workspaceMatches } from "../../server/metering/usage/sql";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

type Rec = {
  usage_event_uuid: string;
  name: string | null;
  operation: string;
  eval_type: string;
  modality: string | null;
  created_by: string | null;
  eval_uuid: string | null;
  eval_run_uuid: string | null;
  notes: string | null;
  rule_metric: string;
  workspace_name: string;
};

describe.each(backends())("records search on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycleUuid = "";

  const get = async (url: string) => {
    const res = await fx.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res;
  };

  async function searchAll(search: string): Promise<Rec[]> {
    const out: Rec[] = [];
    for (let page = 1; ; page++) {
      const q = new URLSearchParams({ billing_cycle_uuid: cycleUuid, search, page: String(page) });
      q.set("page_size", "50");
      const body = (await get(`/v1/usage/records?${q}`)).json();
      out.push(...body.records);
      if (out.length >= body.total || !body.records.length) {
        expect(out.length).toBe(body.total);
        return out;
      }
    }
  }

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setPriceRule(p.database.db, { unitPrice: "0.01", validFrom: new Date("2020-01-01T00:00:00Z") });
    const red = await fx.idOf("Red Team");
    const at = (i: number) => new Date(Date.UTC(2026, 1, 2, 10, i)).toISOString();
    const names = [
      "100% done",
      "1000 done",
      "under_score",
      "underXscore",
      "back\\slash",
      "backslash",
      "Café Ünïcode",
      "plain",
      "a\nb",
    ];
    const events = names.map((name, i) => ({
      event_id: `s-${i}`,
      occurred_at: at(i),
      operation: "generation",
      eval_type: "safety",
      name,
      workspace_uuid: i % 3 === 0 ? red : null,
      created_by: i === 7 ? "Percent%Person@acme.test" : "ann@acme.test",
      eval_uuid: i === 8 ? "eval-_-%" : null,
    }));
    await sendAsOperator(p, fx.acmeId, events);
    cycleUuid = await addCycle(p, fx.acmeId, "2026-02-01", null);
  }, 120_000);

  afterAll(async () => {
    await p?.dispose();
  });

  it("matches wildcards and the escape character literally, case-insensitively, in every searched column", async () => {
    const all = await searchAll("ann@acme.test");
    const everything = [...all, ...(await searchAll("percent%person"))];
    expect(everything).toHaveLength(9);
    const matches = (r: Rec, needle: string) =>
      [
        r.name,
        r.operation,
        r.eval_type,
        r.modality,
        r.created_by,
        r.eval_uuid,
        r.eval_run_uuid,
        r.notes,
        r.rule_metric,
        r.workspace_name,
      ].some((v) => (v ?? "").toLowerCase().includes(needle.toLowerCase()));
    const cases: [string, string[]][] = [
      ["100%", ["100% done"]],
      ["%", ["100% done", "plain", "a\nb"]],
      ["_", ["under_score", "a\nb"]],
      ["under_s", ["under_score"]],
      ["\\", ["back\\slash"]],
      ["k\\s", ["back\\slash"]],
      ["CAFÉ", ["Café Ünïcode"]],
      ["-_-%", ["a\nb"]],
      // A newline in the text matches within one column, never across two.
      ["a\nb", ["a\nb"]],
      ["done\ngeneration", []],
    ];
    for (const [needle, names] of cases) {
      const found = await searchAll(needle);
      expect(found.map((r) => r.name).sort(), JSON.stringify(needle)).toEqual([...names].sort());
      expect(found.map((r) => r.usage_event_uuid).sort(), JSON.stringify(needle)).toEqual(
        everything
          .filter((r) => matches(r, needle))
          .map((r) => r.usage_event_uuid)
          .sort(),
      );
    }
  });

  it('matches workspace names, "Unknown Workspace" too, in the records, the summary and the export', async () => {
    const red = await searchAll("red tEAM");
    expect(red.map((r) => r.name).sort()).toEqual(["100% done", "Café Ünïcode", "underXscore"].sort());
    const unknown = await searchAll("unknown work");
    expect(unknown).toHaveLength(6);
    expect(new Set(unknown.map((r) => r.workspace_name))).toEqual(new Set(["Unknown Workspace"]));
    // "o" is in both workspace names and in event columns: every event.
    expect(await searchAll("o")).toHaveLength(9);

    for (const [needle, n] of [
      ["100%", 1],
      ["red team", 3],
      ["_", 2],
    ] as const) {
      const q = new URLSearchParams({ billing_cycle_uuid: cycleUuid, search: needle });
      const summary = (await get(`/v1/usage/summary?${q}`)).json();
      expect(summary.totals.events, needle).toBe(n);
      const csv = (await get(`/v1/usage/export.csv?${q}`)).body.trim().split(/\r\n(?=\d{4}-)/);
      expect(csv.length - 1, needle).toBe(n);
    }
  });

  it("reads the events through the search index", async () => {
    const db = p.database.db;
    const f = { ...NO_FILTERS, search: "under_s" };
    // The search condition the records, summary and export queries use, on its own: with so few
    // rows the planner would rather scan the table; without that choice only the index can serve it.
    const query = db
      .select({ uuid: usageEvents.usageEventUuid })
      .from(usageEvents)
      .where(searchFilter(f.search, await workspaceMatches(db, fx.acmeId, f.search)))
      .getSQL();
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const res = (await tx.execute(sql`explain ${query}`)) as unknown as { rows: Record<string, string>[] };
      return res.rows.map((r) => Object.values(r)[0]).join("\n");
    });
    expect(plan).toContain("usage_events_search_trgm_idx");
  });
});
