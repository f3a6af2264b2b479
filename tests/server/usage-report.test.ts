import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { reportCsvHeaders } from "../../contract/usage-report";
import { NO_FILTERS, type UsageFilters } from "../../server/metering/usage/filters";
import { type ReportQuery, reportRowsStatement, reportSource } from "../../server/metering/usage/report-sql";
import { backends, startProduct, type TestProduct } from "./harness";
import { usdMicros } from "./usage-reads";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces, type Who } from "./workspaces-fixture";

// GET /v1/usage/report on a handful of known events: the rows and their sums, the buckets (clipped
// to the period, weeks from Sunday), paging by cursor, CSV, refusals and who may read it.

const R = "/v1/usage/report";

type Queryable = { query(text: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

type Row = {
  starting_at: string;
  ending_at: string;
  workspace_uuid?: string | null;
  workspace_name?: string;
  eval_type?: string;
  operation?: string;
  modality?: string;
  eval_run_uuid?: string | null;
  created_by?: string | null;
  events: number;
  count: number;
  cost: string;
};

describe.each(backends())("usage report on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let safety = "";
  let redTeam = "";

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setSamplePrices(p.database.db);
    safety = await fx.idOf("Safety Research");
    redTeam = await fx.idOf("Red Team");
    await addCycle(p, fx.acmeId, "2026-01-01", null);
    const ev = (id: string, at: string, operation: string, evalType: string, extra: object = {}) => ({
      event_id: id,
      occurred_at: at,
      operation,
      eval_type: evalType,
      ...extra,
    });
    // 2026-01-04 is a Sunday: e1..e3 are in the week of Sunday 2025-12-28, e4 and e5 in the next.
    await sendAsOperator(p, fx.acmeId, [
      ev("e1", "2026-01-03T10:15:00Z", "generation", "safety", {
        workspace_uuid: safety,
        quantity: 2,
        created_by: "ada@acme.test",
        eval_run_uuid: "run-1",
      }), // 0.025
      ev("e2", "2026-01-03T10:45:00Z", "scoring", "accuracy", {
        workspace_uuid: redTeam,
        quantity: 5,
        created_by: "max@acme.test",
        eval_run_uuid: "run-1",
      }), // 0.01
      ev("e3", "2026-01-03T23:59:59Z", "generation", "Hallucination", { modality: "Image" }), // 0.01
      ev("e4", "2026-01-04T00:00:00Z", "generation", "safety", { workspace_uuid: safety }), // 0.0125
      ev("e5", "2026-01-05T08:00:00Z", "generation", "safety", {
        workspace_uuid: safety,
        cost: "-0.5",
        notes: "goodwill credit",
      }),
      ev("e6", "2026-02-10T12:00:00Z", "scoring", "safety", { workspace_uuid: redTeam, quantity: 3 }), // 0.006
    ]);
    // Globex's own usage: never in Acme's report, and Acme's never in Globex's.
    await addCycle(p, fx.globexId, "2026-01-01", null);
    await sendAsOperator(p, fx.globexId, [ev("g1", "2026-01-03T10:00:00Z", "generation", "safety")]);
  });
  afterAll(async () => p?.dispose());

  const get = async (url: string, who: Who = "admin", headers: Record<string, string> = {}) => {
    const res = await fx.call(who, "GET", url, undefined, headers);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as {
      data: Row[];
      totals: Row;
      total_rows: number;
      has_more: boolean;
      next_page: string | null;
    };
  };
  const refused = async (query: string, message: RegExp | string) => {
    const res = await fx.call("admin", "GET", `${R}?${query}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    expect(res.json().error.message).toMatch(message);
  };

  it("sums each day per workspace, with names, from the rollup and the raw events alike", async () => {
    const q = "starting_at=2026-01-01&ending_at=2026-03-01&bucket_width=1d&group_by=workspace";
    const r = await get(`${R}?${q}`);
    expect(r.data).toEqual([
      {
        starting_at: "2026-01-03T00:00:00.000Z",
        ending_at: "2026-01-04T00:00:00.000Z",
        workspace_uuid: null,
        workspace_name: "No Workspace",
        events: 1,
        count: 1,
        cost: "0.01",
      },
      ...[
        { ws: [redTeam, "Red Team"], day: "03", events: 1, count: 5, cost: "0.01" },
        { ws: [safety, "Safety Research"], day: "03", events: 1, count: 2, cost: "0.025" },
        { ws: [safety, "Safety Research"], day: "04", events: 1, count: 1, cost: "0.0125" },
        { ws: [safety, "Safety Research"], day: "05", events: 1, count: 1, cost: "-0.50" },
      ]
        .sort((a, b) => a.day.localeCompare(b.day) || String(a.ws[0]).localeCompare(String(b.ws[0])))
        .map((x) => ({
          starting_at: `2026-01-${x.day}T00:00:00.000Z`,
          ending_at: `2026-01-${String(Number(x.day) + 1).padStart(2, "0")}T00:00:00.000Z`,
          workspace_uuid: x.ws[0],
          workspace_name: x.ws[1],
          events: x.events,
          count: x.count,
          cost: x.cost,
        })),
      {
        starting_at: "2026-02-10T00:00:00.000Z",
        ending_at: "2026-02-11T00:00:00.000Z",
        workspace_uuid: redTeam,
        workspace_name: "Red Team",
        events: 1,
        count: 3,
        cost: "0.006",
      },
    ]);
    expect(r.totals).toEqual({ events: 6, count: 13, cost: "-0.4365" });
    expect(r.total_rows).toBe(6);
    // Grouping by created_by too reads the raw events: the same money per workspace and day.
    const raw = await get(`${R}?${q},created_by`);
    expect(raw.totals).toEqual(r.totals);
    expect(raw.data.find((x) => x.created_by === "ada@acme.test")).toMatchObject({ cost: "0.025" });
  });

  it("groups eval types as the dashboard does and keeps modality, run and creator apart", async () => {
    const r = await get(
      `${R}?starting_at=2026-01-01&ending_at=2026-02-01&bucket_width=1mo&group_by=eval_type`,
    );
    expect(r.data.map((x) => [x.eval_type, x.events, x.cost])).toEqual([
      ["accuracy", 2, "0.02"],
      ["safety", 3, "-0.4625"],
    ]);
    const runs = await get(
      `${R}?starting_at=2026-01-01&ending_at=2026-02-01&bucket_width=1mo&group_by=eval_run`,
    );
    expect(runs.data.map((x) => [x.eval_run_uuid, x.events])).toEqual([
      [null, 3],
      ["run-1", 2],
    ]);
    const mods = await get(
      `${R}?starting_at=2026-01-01&ending_at=2026-02-01&bucket_width=1mo&group_by=modality`,
    );
    expect(mods.data.map((x) => [x.modality, x.events])).toEqual([
      ["", 4],
      ["image", 1],
    ]);
  });

  it("starts weeks on Sunday and clips the first and last buckets to the period", async () => {
    const r = await get(`${R}?starting_at=2026-01-03T10:30:00Z&ending_at=2026-01-20&bucket_width=1w`);
    // e1 (10:15) is before the period; e2, e3 in the week of Sunday 2025-12-28, clipped at 10:30.
    expect(r.data).toEqual([
      {
        starting_at: "2026-01-03T10:30:00.000Z",
        ending_at: "2026-01-04T00:00:00.000Z",
        events: 2,
        count: 6,
        cost: "0.02",
      },
      {
        starting_at: "2026-01-04T00:00:00.000Z",
        ending_at: "2026-01-11T00:00:00.000Z",
        events: 2,
        count: 2,
        cost: "-0.4875",
      },
    ]);
    const hours = await get(
      `${R}?starting_at=2026-01-03T00:00:00%2B01:00&ending_at=2026-01-04T01:00:00Z&bucket_width=1h`,
    );
    expect(hours.data.map((x) => [x.starting_at, x.events])).toEqual([
      ["2026-01-03T10:00:00.000Z", 2],
      ["2026-01-03T23:00:00.000Z", 1],
      ["2026-01-04T00:00:00.000Z", 1],
    ]);
  });

  it("applies the dashboard's filters and search", async () => {
    const base = "starting_at=2026-01-01&ending_at=2026-03-01&bucket_width=1mo";
    // A workspace filter keeps usage without a workspace, as the dashboard does.
    const ws = await get(`${R}?${base}&workspace_uuid=${redTeam}`);
    expect(ws.totals).toEqual({ events: 3, count: 9, cost: "0.026" });
    const acc = await get(`${R}?${base}&eval_type=accuracy&operation=generation`);
    expect(acc.totals).toEqual({ events: 1, count: 1, cost: "0.01" });
    const search = await get(`${R}?${base}&search=goodwill`);
    expect(search.totals).toEqual({ events: 1, count: 1, cost: "-0.50" });
    // One eval run's usage (the raw events: the rollups have no run).
    const run = await get(`${R}?${base}&eval_run_uuid=run-1&group_by=created_by`);
    expect(run.data.map((x) => [x.created_by, x.cost])).toEqual([
      ["ada@acme.test", "0.025"],
      ["max@acme.test", "0.01"],
    ]);
    const named = await get(`${R}?${base}&search=red%20team&group_by=workspace`);
    expect(named.data.map((x) => x.workspace_name)).toEqual(["Red Team", "Red Team"]);
  });

  it("pages with an opaque cursor through exactly the rows of one page, totals on every page", async () => {
    const q = "starting_at=2026-01-01&ending_at=2026-02-01&bucket_width=1h&group_by=workspace,operation";
    const all = await get(`${R}?${q}&page_size=1000`);
    expect(all.has_more).toBe(false);
    expect(all.next_page).toBeNull();
    const paged: Row[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const page = await get(`${R}?${q}&page_size=2${next ? `&page=${next}` : ""}`);
      expect(page.totals).toEqual(all.totals);
      expect(page.total_rows).toBe(all.data.length);
      expect(page.data.length).toBeLessThanOrEqual(2);
      paged.push(...page.data);
      next = page.next_page;
      expect(page.has_more).toBe(next !== null);
      pages += 1;
    } while (next);
    expect(all.data).toHaveLength(5);
    expect(pages).toBe(3);
    expect(paged).toEqual(all.data);
    // A cursor is this report's only: another filter, a made-up or a tampered one is refused.
    const first = await get(`${R}?${q}&page_size=2`);
    await refused(`${q}&bucket_width=1d&page=${first.next_page}`.replace("bucket_width=1h&", ""), /cursor/);
    await refused(`${q}&page=abc`, /cursor/);
    const forged = Buffer.from(JSON.stringify({ o: 1, f: "x" })).toString("base64url");
    await refused(`${q}&page=${forged}`, /cursor/);
  });

  it("sends every row as CSV for Accept: text/csv or format=csv, with the JSON's totals", async () => {
    const q =
      "starting_at=2026-01-01&ending_at=2026-03-01&bucket_width=1d&group_by=workspace&group_by=eval_type";
    const json = await get(`${R}?${q}&page_size=1`);
    for (const [url, headers] of [
      [`${R}?${q}&page_size=1`, { accept: "text/csv" }],
      [`${R}?${q}&format=csv`, {}],
    ] as const) {
      const res = await fx.call("admin", "GET", url, undefined, headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
      expect(res.headers["content-disposition"]).toMatch(/usage_report_2026-01-01_2026-03-01_1d\.csv/);
      const rows = Papa.parse<string[]>(res.body.trim()).data;
      expect(rows[0]).toEqual(reportCsvHeaders(["workspace", "eval_type"]));
      expect(rows[0]).toEqual([
        "Starting At",
        "Ending At",
        "Workspace ID",
        "Workspace",
        "Eval Type",
        "Events",
        "Count",
        "Cost",
      ]);
      expect(rows.length - 1).toBe(json.total_rows);
      expect(usdMicros(rows.slice(1).map((r) => r[7] ?? ""))).toBe(parseUsd(json.totals.cost));
      expect(rows.slice(1).reduce((s, r) => s + Number(r[5]), 0)).toBe(json.totals.events);
    }
    // JSON stays the default, and wins when both are accepted.
    const both = await fx.call("admin", "GET", `${R}?${q}`, undefined, {
      accept: "text/csv, application/json",
    });
    expect(both.headers["content-type"]).toMatch(/application\/json/);
  });

  it("refuses bad periods, widths, groupings and pages with a 400 that says why", async () => {
    await refused("ending_at=2026-02-01", "query parameter starting_at: starting_at is required.");
    await refused("starting_at=yesterday", /ISO 8601/);
    await refused("starting_at=2026-02-30", /ISO 8601/);
    await refused("starting_at=0001-01-01T00:00:00Z", /between 2000-01-01/);
    await refused("starting_at=2026-01-01&ending_at=9999-12-31T00:00:00Z", /between/);
    await refused("starting_at=2026-02-01&ending_at=2026-02-01", /ending_at must be after starting_at/);
    await refused("starting_at=2026-02-01&ending_at=2026-01-01", /ending_at must be after starting_at/);
    await refused(
      "starting_at=2026-01-01&ending_at=2026-03-01&bucket_width=1h",
      /1,416 buckets of 1h.*at most 1,000/,
    );
    await refused("starting_at=2026-01-01&bucket_width=2d", /bucket_width must be one of 1h, 1d, 1w, 1mo/);
    await refused("starting_at=2026-01-01&group_by=api_keys", /group_by must be a list of/);
    await refused("starting_at=2026-01-01&group_by=workspace,colour", /group_by must be a list of/);
    await refused("starting_at=2026-01-01&page_size=0", /page_size must be at least 1/);
    await refused("starting_at=2026-01-01&page_size=1001", /page_size must be at most 1000/);
    await refused(
      "starting_at=2026-01-01&billing_cycle_uuid=00000000-0000-4000-8000-000000000000",
      /Unknown/,
    );
    await refused("starting_at=2026-01-01&workspace_uuid=nope", /workspace_uuid must be a UUID/);
  });

  it("is for administrators: members and their keys get 403, an administrator's key 200", async () => {
    const q = `${R}?starting_at=2026-01-01&ending_at=2026-02-01`;
    expect((await fx.call("member", "GET", q)).statusCode).toBe(403);
    expect((await fx.call("memberKey", "GET", q)).statusCode).toBe(403);
    expect((await fx.call("none", "GET", q)).statusCode).toBe(401);
    expect((await get(q, "adminKey")).totals.events).toBe(5);
  });

  it("reads the table the dashboard reads for the same filters, the raw events when it must", () => {
    const q = (over: Partial<ReportQuery>, f: Partial<UsageFilters> = {}): ReportQuery => ({
      organizationUuid: fx.acmeId,
      start: new Date("2026-01-01T00:00:00Z"),
      end: new Date("2026-02-01T00:00:00Z"),
      width: "1d",
      groupBy: ["workspace", "eval_type", "operation"],
      filters: { ...NO_FILTERS, ...f },
      matches: null,
      ...over,
    });
    expect(reportSource(q({}))).toBe("usage_daily_coarse");
    expect(reportSource(q({ width: "1mo" }, { evalTypes: ["safety"], operations: ["scoring"] }))).toBe(
      "usage_daily_coarse",
    );
    expect(reportSource(q({}, { jailbreak: "only" }))).toBe("usage_daily_mid");
    expect(reportSource(q({}, { groundTruth: "with" }))).toBe("usage_daily_mid");
    expect(reportSource(q({}, { modalities: ["image"] }))).toBe("usage_daily");
    expect(reportSource(q({ groupBy: ["modality"] }))).toBe("usage_daily");
    expect(reportSource(q({ width: "1h" }))).toBe("usage_events");
    expect(reportSource(q({ start: new Date("2026-01-01T06:00:00Z") }))).toBe("usage_events");
    expect(reportSource(q({ groupBy: ["created_by"] }))).toBe("usage_events");
    expect(reportSource(q({ groupBy: ["eval_run"] }))).toBe("usage_events");
    expect(reportSource(q({}, { search: "red" }))).toBe("usage_events");
    expect(reportSource(q({}, { evalRun: "run-1" }))).toBe("usage_events");
  });

  it("reads the raw events of the period's monthly partitions only", async () => {
    const q = (start: string, end: string): ReportQuery => ({
      organizationUuid: fx.acmeId,
      start: new Date(start),
      end: new Date(end),
      width: "1h",
      groupBy: ["workspace"],
      filters: NO_FILTERS,
      matches: null,
    });
    const client = (p.database.db as unknown as { $client: Queryable }).$client;
    const partitions = async (start: string, end: string) => {
      const { sql: text, params } = reportRowsStatement(p.database.db, q(start, end), { limit: 10 });
      const plan = (await client.query(`explain ${text}`, params)).rows
        .map((r) => Object.values(r)[0])
        .join("\n");
      return [...new Set(plan.match(/usage_events_y\d{4}m\d{2}/g) ?? [])].sort();
    };
    expect(reportSource(q("2026-01-03T10:30:00Z", "2026-01-20T00:00:00Z"))).toBe("usage_events");
    expect(await partitions("2026-01-03T10:30:00Z", "2026-01-20T00:00:00Z")).toEqual([
      "usage_events_y2026m01",
    ]);
    expect(await partitions("2026-01-03T10:30:00Z", "2026-02-20T00:00:00Z")).toEqual([
      "usage_events_y2026m01",
      "usage_events_y2026m02",
    ]);
  });

  it("is documented in OpenAPI: its parameters, the JSON page and the CSV", async () => {
    const doc = (await p.api.app.inject("/v1/openapi.json")).json();
    const op = doc.paths["/v1/usage/report"].get;
    expect(op.parameters.map((x: { name: string }) => x.name)).toEqual(
      expect.arrayContaining([
        "starting_at",
        "ending_at",
        "bucket_width",
        "group_by",
        "page_size",
        "page",
        "format",
        "workspace_uuid",
        "eval_type",
        "operation",
        "modality",
        "ground_truth",
        "jailbreak",
        "search",
        "eval_run_uuid",
      ]),
    );
    expect(op.parameters.map((x: { name: string }) => x.name)).not.toContain("billing_cycle_uuid");
    expect(Object.keys(op.responses["200"].content)).toEqual(["application/json", "text/csv"]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "429"]));
    expect(op.description).toMatch(
      /group_by api_key maps each event to the API key \(its id\) that started its eval run/,
    );
  });

  it("never shows another organization's usage, even under its workspace filter", async () => {
    const q = `${R}?starting_at=2026-01-01&ending_at=2026-02-01&group_by=workspace&workspace_uuid=${safety}`;
    const r = await get(q, "other");
    // Globex's own event only (it has no workspace), never Acme's Safety Research.
    expect(r.data.map((x) => [x.workspace_name, x.events])).toEqual([["No Workspace", 1]]);
    const csv = await fx.call("other", "GET", `${q}&format=csv`);
    expect(csv.body).not.toContain(safety);
    expect(csv.body).not.toContain("Safety Research");
  });
});
