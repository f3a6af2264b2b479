import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { workspaceGroupMembers, workspaceGroups } from "../../server/db/schema";
import { listCycles } from "../../server/metering/billing/cycles";
import { keepsRecord, NO_FILTERS, type UsageFilters } from "../../server/metering/usage/filters";
import { newestEvents } from "../../server/metering/usage/records";
import { backends, signIn, startProduct, type TestProduct } from "./harness";
import { allRecords, toFilterable, usageQuery, usdMicros } from "./usage-reads";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

type Rec = {
  usage_event_uuid: string;
  date: string;
  name: string | null;
  operation: string;
  eval_type: string;
  quantity: number;
  cost: string;
  created_by: string | null;
  workspace_uuid: string | null;
  workspace_name: string;
  modality: string | null;
  is_jailbreak: boolean;
  has_ground_truth: boolean;
};
type Sums = { events: number; count: number; cost: string };

/** A small deterministic generator, so failures reproduce. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

describe.each(backends())("usage queries on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  const keys = { acme: "", globex: "" };
  const ws: Record<string, string> = {};
  let janCycle = "";
  let febCycle = "";

  async function orgKey(email: string, orgId: string) {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/api_keys",
      headers: { cookie: await signIn(p, email), "x-csrf-token": "-.-" },
      payload: { org_id: orgId, expiration_option: "OneMonth" },
    });
    if (res.statusCode !== 200) throw new Error(`org key for ${email}: ${res.statusCode} ${res.body}`);
    return res.json().api_key_token as string;
  }

  const get = async (url: string, who: "admin" | "adminKey" | "other" = "admin") => {
    const res = await fx.call(who, "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    keys.acme = await orgKey("admin@acme.test", fx.acmeId);
    keys.globex = await orgKey("other@globex.test", fx.globexId);
    const db = p.database.db;
    await setSamplePrices(db);
    for (const name of ["Safety Research", "Red Team", "Accuracy Benchmarks"]) ws[name] = await fx.idOf(name);

    const rnd = random(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)] as T;
    const wsChoices = [ws["Safety Research"], ws["Red Team"], ws["Accuracy Benchmarks"], null];
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < 140; i++) {
      const day = 1 + Math.floor(rnd() * 40); // February and the first days of March
      const at = new Date(Date.UTC(2026, 1, day, Math.floor(rnd() * 24), Math.floor(rnd() * 60)));
      events.push({
        event_id: `q-${i}`,
        occurred_at: at.toISOString(),
        workspace_uuid: pick(wsChoices),
        name: `eval ${i % 9}`,
        operation: pick(["generation", "scoring"]),
        eval_type: pick(["safety", "accuracy", "jailbreak"]),
        modality: pick(["text", "image", null]),
        is_jailbreak: rnd() < 0.3,
        has_ground_truth: rnd() < 0.5,
        quantity: 1 + Math.floor(rnd() * 5),
        created_by: pick(["ann@acme.test", "bob@acme.test"]),
        ...(i % 23 === 0 ? { cost: "-0.05", notes: `credit ${i}` } : {}),
      });
    }
    // Cycle boundary: the last instant of January and midnight of February 1st.
    events.push(
      {
        event_id: "edge-jan",
        occurred_at: "2026-01-31T23:59:59.999Z",
        operation: "scoring",
        eval_type: "safety",
      },
      {
        event_id: "edge-feb",
        occurred_at: "2026-02-01T00:00:00.000Z",
        operation: "scoring",
        eval_type: "safety",
      },
      {
        event_id: "needle",
        occurred_at: "2026-02-10T12:00:00Z",
        operation: "generation",
        eval_type: "accuracy",
        name: "Needle Haystack 42",
      },
    );
    await sendAsOperator(p, fx.acmeId, events);
    await sendAsOperator(p, fx.globexId, [
      {
        event_id: "g-1",
        occurred_at: "2026-05-20T10:00:00Z",
        operation: "generation",
        eval_type: "safety",
      },
      { event_id: "g-2", occurred_at: "2026-06-02T10:00:00Z", operation: "scoring", eval_type: "safety" },
    ]);

    // Two cycles for Acme: January (closed) and February onwards (current), made after the
    // usage is in (usage sent after a cycle closes is billed late, in the open cycle).
    janCycle = await addCycle(p, fx.acmeId, "2026-01-01", "2026-02-01");
    febCycle = await addCycle(p, fx.acmeId, "2026-02-01", null);

    const [group] = await db
      .insert(workspaceGroups)
      .values({ organizationUuid: fx.acmeId, groupName: "Research", prepaidMicros: 1_000_000n })
      .returning();
    await db
      .insert(workspaceGroupMembers)
      .values({ workspaceGroupUuid: group!.workspaceGroupUuid, workspaceUuid: ws["Safety Research"]! });
  });
  afterAll(async () => p?.dispose());

  const cycleRecords = (cycle = febCycle, f: UsageFilters = NO_FILTERS): Promise<Rec[]> =>
    allRecords(get, cycle, f);

  it("reconciles records, summary and series for many filter combinations", async () => {
    const everything = await cycleRecords();
    expect(everything).toHaveLength(142); // 140 random + edge-feb + needle
    const combos: Partial<UsageFilters>[] = [
      {},
      { evalTypes: ["safety"] },
      { evalTypes: ["safety", "jailbreak"], operations: ["scoring"] },
      { modalities: ["image"] },
      { modalities: ["text"], groundTruth: "with" },
      { groundTruth: "without", jailbreak: "only" },
      { jailbreak: "non", operations: ["generation"] },
      { workspaceUuids: [ws["Red Team"]!] },
      {
        workspaceUuids: [ws["Red Team"]!, ws["Accuracy Benchmarks"]!],
        evalTypes: ["accuracy"],
        jailbreak: "non",
      },
      { evalTypes: ["nothing-like-this"] },
      { search: "eval 3" },
      { search: "needle", evalTypes: ["accuracy"] },
      { search: "bob@", modalities: ["image"], groundTruth: "with" },
    ];
    for (const partial of combos) {
      const f: UsageFilters = { ...NO_FILTERS, ...partial };
      const label = JSON.stringify(partial);
      const records = await cycleRecords(febCycle, f);
      const summary = await get(`/v1/usage/summary?${usageQuery(f, { billing_cycle_uuid: febCycle })}`);
      const cost = usdMicros(records.map((r) => r.cost));
      const count = records.reduce((s, r) => s + r.quantity, 0);
      const needle = f.search?.toLowerCase();
      const searchable = (r: Rec) =>
        [r.name, r.operation, r.eval_type, r.modality, r.created_by, r.workspace_name]
          .join("\n")
          .toLowerCase();
      const expected = everything.filter(
        (r) => keepsRecord(toFilterable(r), f) && (!needle || searchable(r).includes(needle)),
      );
      expect(records.map((r) => r.usage_event_uuid).sort(), label).toEqual(
        expected.map((r) => r.usage_event_uuid).sort(),
      );
      if (!partial.evalTypes?.includes("nothing-like-this")) expect(records.length, label).toBeGreaterThan(0);
      expect(summary.totals.events, label).toBe(records.length);
      expect(summary.totals.count, label).toBe(count);
      expect(parseUsd(summary.totals.cost), label).toBe(cost);
      const sum = (rows: Sums[]) => ({
        events: rows.reduce((s, r) => s + r.events, 0),
        cost: usdMicros(rows.map((r) => r.cost)),
      });
      expect(sum(summary.by_operation), label).toEqual({ events: records.length, cost });
      for (const grouping of ["daily", "weekly", "monthly"]) {
        const series = await get(
          `/v1/usage/series?${usageQuery(f, { billing_cycle_uuid: febCycle, grouping })}`,
        );
        const buckets = series.buckets as { events: number; total_count: number; total_price: string }[];
        expect(
          buckets.reduce((s, b) => s + b.events, 0),
          `${label} ${grouping}`,
        ).toBe(records.length);
        expect(
          buckets.reduce((s, b) => s + b.total_count, 0),
          `${label} ${grouping}`,
        ).toBe(count);
        expect(usdMicros(buckets.map((b) => b.total_price)), `${label} ${grouping}`).toBe(cost);
      }
    }
  });

  it("names workspaces in the summary, report and explanation as they are now: a rename writes no usage", async () => {
    const red = ws["Red Team"] as string;
    const names = async () =>
      (
        (await get(`/v1/usage/summary?billing_cycle_uuid=${febCycle}`)).by_workspace as {
          workspace_uuid: string | null;
          workspace_name: string;
        }[]
      ).map((w) => [w.workspace_uuid, w.workspace_name]);
    // The report's rows and CSV and the explanation's breadcrumb name the workspace too; each reads
    // the names through the API's workspace cache, which the rename must reach.
    const reportQuery = "starting_at=2026-02-01T00:00:00Z&bucket_width=1mo&group_by=workspace";
    const reportNames = async () => [
      ...new Set(
        (
          (await get(`/v1/usage/report?${reportQuery}`)).data as {
            workspace_uuid: string;
            workspace_name: string;
          }[]
        )
          .filter((r) => r.workspace_uuid === red)
          .map((r) => r.workspace_name),
      ),
    ];
    const csvLines = async () => {
      const res = await fx.call("admin", "GET", `/v1/usage/report?${reportQuery}&format=csv`);
      expect(res.statusCode, res.body).toBe(200);
      return res.body.split("\n").filter((line) => line.includes(red));
    };
    const crumb = async () =>
      (
        (await get(`/v1/usage/explain?billing_cycle_uuid=${febCycle}&level=workspace&workspace_uuid=${red}`))
          .path as { label: string }[]
      ).at(-1)?.label;
    const before = await names();
    expect(before).toContainEqual([red, "Red Team"]);
    expect(await reportNames()).toEqual(["Red Team"]);
    expect((await csvLines()).length).toBeGreaterThan(0);
    expect(await crumb()).toBe("Red Team");
    const rename = async (name: string) => {
      const res = await fx.call("admin", "PUT", `/v1/workspaces/${red}`, {
        name,
        organization_uuid: fx.acmeId,
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await rename("Red Team Renamed");
    try {
      const after = await names();
      expect(after).toContainEqual([red, "Red Team Renamed"]);
      expect(after.map(([id]) => id)).toEqual(before.map(([id]) => id));
      expect(await reportNames()).toEqual(["Red Team Renamed"]);
      for (const line of await csvLines()) expect(line).toContain("Red Team Renamed");
      expect(await crumb()).toBe("Red Team Renamed");
    } finally {
      await rename("Red Team");
    }
    expect(await names()).toEqual(before);
    expect(await reportNames()).toEqual(["Red Team"]);
  });

  it("summarizes by workspace (top 6 + No Workspace), eval type and operation, with filter options", async () => {
    const s = await get(`/v1/usage/summary?billing_cycle_uuid=${febCycle}`, "adminKey");
    const names = s.by_workspace.map((w: { workspace_name: string }) => w.workspace_name);
    expect(names.at(-1)).toBe("No Workspace");
    expect(names.slice(0, -1).sort()).toEqual(["Accuracy Benchmarks", "Red Team", "Safety Research"]);
    expect(s.by_eval_type.length).toBeLessThanOrEqual(5);
    expect(s.filter_options).toMatchObject({
      eval_types: ["accuracy", "jailbreak", "safety"],
      operations: ["generation", "scoring"],
      modalities: ["image", "text"],
    });
    expect(new Date(s.data_as_of).toString()).not.toBe("Invalid Date");
    // The current cycle is the default.
    expect((await get("/v1/usage/summary")).totals).toEqual(s.totals);
  });

  it("puts weekly buckets on Sundays and monthly ones on the 1st", async () => {
    const weekly = await get(`/v1/usage/series?billing_cycle_uuid=${febCycle}&grouping=weekly`);
    expect(weekly.buckets.length).toBeGreaterThan(4);
    for (const b of weekly.buckets) expect(new Date(`${b.date}T00:00:00Z`).getUTCDay()).toBe(0);
    expect(weekly.buckets[0].date).toBe("2026-02-01"); // a Sunday
    const monthly = await get(`/v1/usage/series?billing_cycle_uuid=${febCycle}&grouping=monthly`);
    for (const b of monthly.buckets) expect(b.date.endsWith("-01")).toBe(true);
    expect(monthly.buckets[0].date).toBe("2026-02-01");
    const daily = await get(`/v1/usage/series?billing_cycle_uuid=${janCycle}&grouping=daily`);
    expect(daily.buckets).toHaveLength(31);
    expect(daily.buckets.at(-1)).toMatchObject({ date: "2026-01-31", events: 1 });
  });

  it("splits cycles at midnight UTC", async () => {
    const jan = await cycleRecords(janCycle);
    expect(jan.map((r) => r.date)).toEqual(["2026-01-31T23:59:59.999Z"]);
    const feb = await cycleRecords(febCycle);
    expect(feb.some((r) => r.date === "2026-02-01T00:00:00.000Z")).toBe(true);
    expect(feb.some((r) => r.date < "2026-02-01")).toBe(false);
  });

  it("pages and sorts on the server", async () => {
    const first = await get("/v1/usage/records");
    expect(first).toMatchObject({ page: 1, page_size: 10, total: 142 });
    const dates = first.records.map((r: Rec) => r.date);
    expect(dates).toEqual([...dates].sort().reverse());
    for (const sort of ["cost", "-cost", "date", "quantity", "-workspace_name", "name"]) {
      const seen: Rec[] = [];
      for (let page = 1; page <= 21; page++) {
        const r = await get(`/v1/usage/records?sort=${sort}&page=${page}&page_size=7`);
        seen.push(...r.records);
      }
      expect(new Set(seen.map((r) => r.usage_event_uuid)).size, sort).toBe(142);
      const key = sort.replace("-", "") as keyof Rec;
      const values = seen.map((r) => (key === "cost" ? Number(r.cost) : r[key]));
      const sorted = [...values].sort((a, b) =>
        (a as string | number) < (b as string | number) ? -1 : a === b ? 0 : 1,
      );
      if (key !== "name" && key !== "workspace_name")
        expect(values, sort).toEqual(sort.startsWith("-") ? sorted.reverse() : sorted);
    }
    const beyond = await get("/v1/usage/records?page=99");
    expect(beyond.records).toEqual([]);
    expect(beyond.total).toBe(142);
    const unattributed = first.records
      .concat((await get("/v1/usage/records?page_size=500")).records)
      .find((r: Rec) => r.workspace_uuid === null);
    expect(unattributed.workspace_name).toBe("Unknown Workspace");
  });

  it("serves GET /v1/usage/ (spec §7) as the records with the same filters, paging and sort", async () => {
    for (const q of [
      "",
      `?billing_cycle_uuid=${febCycle}&eval_type=safety`,
      "?sort=cost&page=3&page_size=7",
      `?workspace_uuid=${ws["Red Team"]}&sort=-quantity&page_size=500`,
      "?search=safety&page=2",
    ]) {
      const listed = await get(`/v1/usage/${q}`);
      expect(listed, q).toEqual(await get(`/v1/usage/records${q}`));
      expect(await get(`/v1/usage${q}`, "adminKey"), q).toEqual(listed);
    }
    expect((await get("/v1/usage/")).total).toBe(142);
    const bad = await fx.call("admin", "GET", "/v1/usage/?page_size=501");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toEqual({
      code: expect.any(String),
      message: "query parameter page_size: page_size must be at most 500.",
    });
    for (const who of ["member", "memberKey"] as const)
      expect((await fx.call(who, "GET", "/v1/usage/")).statusCode, who).toBe(403);
    expect((await fx.call("none", "GET", "/v1/usage/")).statusCode).toBe(401);
    const doc = (await fx.call("none", "GET", "/v1/openapi.json")).json();
    expect(doc.paths["/v1/usage/"].get.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/UsageRecordsPage",
    });
  });

  it("documents every field the usage summary and series answer with", async () => {
    const doc = (await fx.call("none", "GET", "/v1/openapi.json")).json();
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema };
    const resolve = (s: Schema): Schema =>
      s.$ref ? resolve(doc.components.schemas[s.$ref.split("/").pop() as string]) : s;
    // Every key of the answer (recursively, through arrays) is a property of its schema.
    const undocumented = (value: unknown, schema: Schema, path: string): string[] => {
      const s = resolve(schema);
      if (Array.isArray(value))
        return value.flatMap((v, i) => undocumented(v, s.items ?? {}, `${path}[${i}]`));
      if (value === null || typeof value !== "object" || !s.properties) return [];
      return Object.entries(value).flatMap(([k, v]) =>
        s.properties?.[k] ? undocumented(v, s.properties[k]!, `${path}.${k}`) : [`${path}.${k}`],
      );
    };
    const schemaOf = (path: string) =>
      doc.paths[path].get.responses["200"].content["application/json"].schema as Schema;
    const summary = await get(`/v1/usage/summary?billing_cycle_uuid=${febCycle}`);
    expect(summary.credits).toBeDefined();
    expect(undocumented(summary, schemaOf("/v1/usage/summary"), "summary")).toEqual([]);
    const series = await get(`/v1/usage/series?billing_cycle_uuid=${febCycle}&grouping=daily`);
    expect(undocumented(series, schemaOf("/v1/usage/series"), "series")).toEqual([]);
  });

  it("exports CSV with exactly the spec's columns, filtered like the records", async () => {
    const res = await fx.call(
      "admin",
      "GET",
      `/v1/usage/export.csv?billing_cycle_uuid=${febCycle}&eval_type=safety`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/csv/);
    expect(res.headers["content-disposition"]).toMatch(/usage_data_\d{4}-\d{2}-\d{2}\.csv/);
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "Date,Eval,Operation,Eval Type,Eval ID,Run ID,Workspace,Created By,Quantity,Unit Price,Cost,Price Adjustment Note",
    );
    const { total } = await get(`/v1/usage/records?billing_cycle_uuid=${febCycle}&eval_type=safety`);
    expect(lines).toHaveLength(total + 1);
  });

  it("lets administrators read usage and refuses members and members' keys with 403", async () => {
    const urls = [
      `/v1/usage/records?billing_cycle_uuid=${febCycle}`,
      `/v1/usage/summary?billing_cycle_uuid=${febCycle}`,
      `/v1/usage/series?billing_cycle_uuid=${febCycle}`,
      `/v1/usage/export.csv?billing_cycle_uuid=${febCycle}`,
      "/v1/usage/summary",
    ];
    for (const url of urls) {
      for (const who of ["member", "memberKey", "newcomer"] as const) {
        const res = await fx.call(who, "GET", url);
        expect(res.statusCode, `${who} ${url}: ${res.body}`).toBe(403);
        expect(res.json().error).toMatchObject({
          code: "forbidden",
          message: "Only organization administrators can read the organization's usage.",
        });
      }
      for (const who of ["admin", "adminKey"] as const)
        expect((await fx.call(who, "GET", url)).statusCode, `${who} ${url}`).toBe(200);
      const orgKey = await p.api.app.inject({ method: "GET", url, headers: { "x-api-key": keys.acme } });
      expect(orgKey.statusCode, `org key ${url}`).toBe(200);
    }
  });

  it("reports billing cycles with group totals to administrators only", async () => {
    const list = await get("/v1/accounts/organization/billingcycles", "admin");
    expect(list.map((c: { billing_cycle_uuid: string }) => c.billing_cycle_uuid)).toEqual([
      janCycle,
      febCycle,
    ]);
    const feb = list[1];
    expect(feb).toMatchObject({
      billing_cycle_start_date: "2026-02-01",
      billing_cycle_end_date: null,
      paid_amount_usd: "0.00",
      usage_breakdown: { usage_events: [] },
    });
    const summary = await get(`/v1/usage/summary?billing_cycle_uuid=${febCycle}`);
    const groups = feb.workspace_groups as {
      group_name: string;
      total_cost: string;
      balance_remaining: string;
    }[];
    expect(groups.map((g) => g.group_name)).toEqual(["Research", "default"]);
    expect(usdMicros([...groups.map((g) => g.total_cost), feb.unattributed_cost])).toBe(
      parseUsd(summary.totals.cost),
    );
    const research = summary.by_workspace.find(
      (w: { workspace_name: string }) => w.workspace_name === "Safety Research",
    );
    expect(groups[0]!.total_cost).toBe(research.cost);
    expect(parseUsd(groups[0]!.balance_remaining)).toBe(parseUsd(research.cost) - 1_000_000n);
    const none = summary.by_workspace.find(
      (w: { workspace_uuid: string | null }) => w.workspace_uuid === null,
    );
    expect(feb.unattributed_cost).toBe(none.cost);

    // Every cycle of the list (its totals asked for all cycles at once) holds what that cycle alone
    // holds, and its groups add up to its own usage summary: no day counts in another cycle.
    for (const listed of list as {
      billing_cycle_uuid: string;
      workspace_groups: { total_cost: string }[];
    }[]) {
      const alone = await get(
        `/v1/accounts/organization/billingcycles?billing_cycle_uuid=${listed.billing_cycle_uuid}`,
        "admin",
      );
      expect({ ...alone, usage_breakdown: undefined }).toEqual({ ...listed, usage_breakdown: undefined });
      const own = await get(`/v1/usage/summary?billing_cycle_uuid=${listed.billing_cycle_uuid}`);
      expect(usdMicros([...listed.workspace_groups.map((g) => g.total_cost), alone.unattributed_cost])).toBe(
        parseUsd(own.totals.cost),
      );
    }
    expect(parseUsd(list[0].total_cost)).toBeGreaterThan(0n);

    const detail = await get(
      `/v1/accounts/organization/billingcycles?billing_cycle_uuid=${febCycle}`,
      "admin",
    );
    expect(detail.usage_breakdown.usage_events).toHaveLength(142);
    expect(detail.usage_breakdown.usage_events_truncated).toBe(false);
    const cycle = (await listCycles(p.database.db, fx.acmeId)).find((c) => c.billingCycleUuid === febCycle)!;
    const newest = await newestEvents(p.database.db, cycle, 5);
    expect(newest.truncated).toBe(true);
    expect(newest.events.map((e) => e.usage_event_uuid)).toEqual(
      detail.usage_breakdown.usage_events.slice(0, 5).map((e: Rec) => e.usage_event_uuid),
    );

    expect((await fx.call("member", "GET", "/v1/accounts/organization/billingcycles")).statusCode).toBe(403);
    expect((await fx.call("adminKey", "GET", "/v1/accounts/organization/billingcycles")).statusCode).toBe(
      401,
    );
  });

  it("gives an organization its first cycle with its first usage and never shows another organization's data", async () => {
    const cycles = await get("/v1/accounts/organization/billingcycles", "other");
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ billing_cycle_start_date: "2026-05-01", billing_cycle_end_date: null });
    const again = await get("/v1/accounts/organization/billingcycles", "other");
    expect(again.map((c: { billing_cycle_uuid: string }) => c.billing_cycle_uuid)).toEqual([
      cycles[0].billing_cycle_uuid,
    ]);
    const records = await get("/v1/usage/records?page_size=500", "other");
    expect(records.total).toBe(2);
    expect(records.records.every((r: Rec) => r.date >= "2026-05")).toBe(true);
    const summary = await get("/v1/usage/summary", "other");
    expect(summary.totals.events).toBe(2);
    expect(summary.filter_options.workspaces).toEqual([]);
    // Acme's cycle is unknown to Globex, and the reverse.
    for (const url of [
      `/v1/usage/records?billing_cycle_uuid=${febCycle}`,
      `/v1/usage/summary?billing_cycle_uuid=${febCycle}`,
      `/v1/usage/series?billing_cycle_uuid=${febCycle}`,
      `/v1/usage/export.csv?billing_cycle_uuid=${febCycle}`,
      `/v1/accounts/organization/billingcycles?billing_cycle_uuid=${febCycle}`,
    ])
      expect((await fx.call("other", "GET", url)).statusCode, url).toBe(404);
    const acme = await fx.call(
      "admin",
      "GET",
      `/v1/usage/records?billing_cycle_uuid=${cycles[0].billing_cycle_uuid}`,
    );
    expect(acme.statusCode).toBe(404);
  });

  it("answers bad parameters with 400 JSON and anonymous calls with 401", async () => {
    for (const url of [
      "/v1/usage/records?page=0",
      "/v1/usage/records?page=abc",
      "/v1/usage/records?page_size=100000",
      "/v1/usage/records?sort=price",
      "/v1/usage/records?workspace_uuid=nope",
      "/v1/usage/summary?ground_truth=maybe",
      "/v1/usage/summary?jailbreak=yes",
      "/v1/usage/summary?billing_cycle_uuid=123",
      "/v1/usage/series?grouping=yearly",
      "/v1/usage/series?unknown=1",
      "/v1/usage/export.csv?page=1",
      "/v1/accounts/organization/billingcycles?billing_cycle_uuid=x",
    ]) {
      const res = await fx.call("admin", "GET", url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code, url).toBe("invalid_request");
    }
    expect((await fx.call("none", "GET", "/v1/usage/summary")).statusCode).toBe(401);
  });
});
