import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { EvalRunComparison, EvalRunFigures } from "../../contract/eval-run-outcomes";
import type { EvalRunDetail, EvalRunList } from "../../contract/eval-runs";
import { formatUsdExact, parseUsd } from "../../contract/money";
import type { UsageReportPage } from "../../contract/usage-report";
import { backends, productPerSuite } from "./harness";
import { rowsOf } from "./tenants";
import { sendAsOperator, setSixDecimalPrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// What a run bought: outcomes reported while it runs and when it finishes, the figures every read
// answers with them (pass rate, cost per passed case, cost by role), the comparison of runs and
// the eval_run.finished webhook event, checked to the micro-dollar.

/** cost ÷ passed to the micro-dollar, halves away from zero, computed apart from the product. */
function perPassed(cost: string, passed: number): string {
  const micros = parseUsd(cost);
  const abs = micros < 0n ? -micros : micros;
  const q = abs / BigInt(passed);
  const r = abs % BigInt(passed);
  const rounded = 2n * r >= BigInt(passed) ? q + 1n : q;
  return formatUsdExact(micros < 0n ? -rounded : rounded);
}

describe.each(backends())("eval run outcomes on $name", (backend) => {
  const suite = productPerSuite(backend);
  let f: Fixture;
  let ws = "";
  const runs: string[] = [];
  const call = (
    method: "GET" | "POST" | "PUT",
    url: string,
    payload?: unknown,
    who: "admin" | "member" | "other" = "admin",
  ) => f.call(who, method, url, payload);
  const ok = async <T>(method: "GET" | "POST" | "PUT", url: string, payload?: unknown) => {
    const res = await call(method, url, payload);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  };
  const detail = (run: string) => ok<EvalRunDetail>("GET", `/v1/eval-runs/${run}`);
  const audits = async (action: string) =>
    rowsOf<{ n: string }>(
      await suite.p.database.db.execute(sql`select count(*) as n from audit_log where action = ${action}`),
    ).map((r) => Number(r.n))[0];

  it("starts three runs of one eval and sends their usage: generation and the judge's scoring", async () => {
    const p = suite.p;
    f = await setUpWorkspaces(p);
    await setSixDecimalPrices(p.database.db);
    const created = await call("POST", "/v1/workspaces/", { name: "Outcomes", organization_uuid: f.acmeId });
    ws = created.json().workspace_uuid;
    const hook = await call("POST", "/v1/webhook-endpoints", {
      url: "https://93.184.215.14/run-hooks",
      events: ["eval_run.finished"],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    for (let i = 0; i < 3; i++) {
      const res = await call("POST", "/v1/eval-runs", {
        workspace_uuid: ws,
        name: "Jailbreak Sweep",
        eval_type: "jailbreak",
      });
      expect(res.statusCode, res.body).toBe(201);
      runs.push(res.json().eval_run_uuid);
    }
    const at = new Date(Date.now() - 60_000).toISOString();
    const event = (id: string, run: string, operation: string, extra: Record<string, unknown> = {}) => ({
      event_id: id,
      occurred_at: at,
      eval_type: "jailbreak",
      workspace_uuid: ws,
      name: "Jailbreak Sweep",
      eval_run_uuid: run,
      operation,
      ...extra,
    });
    await sendAsOperator(p, f.acmeId, [
      event("r0-g", runs[0] ?? "", "generation", { quantity: 7 }),
      event("r0-s", runs[0] ?? "", "scoring", { quantity: 3 }),
      // The judge under another name, and an explicit charge of odd micro-dollars.
      event("r0-j", runs[0] ?? "", "Judge", { cost: "0.000001", notes: "judged by hand" }),
      event("r0-c", runs[0] ?? "", "generation", { cost: "1.000003", notes: "odd", eval_type: "safety" }),
      event("r1-g", runs[1] ?? "", "generation", { quantity: 2 }),
      event("r1-s", runs[1] ?? "", "scoring", { quantity: 5 }),
    ]);
  });

  it("reports outcomes while a run goes: pass rate, cost per passed case, the role split adding up", async () => {
    const run = runs[0] ?? "";
    const set = await ok<{ outcomes: unknown; pass_rate: string; finished_at: null }>(
      "PUT",
      `/v1/eval-runs/${run}/outcomes`,
      { outcomes: { passed: 7, failed: 2, errored: 1 } },
    );
    expect(set).toMatchObject({
      outcomes: { passed: 7, failed: 2, errored: 1 },
      pass_rate: "0.700000",
      finished_at: null,
    });
    const d = await detail(run);
    // 7 generations at $0.047311, 3 jailbreak scorings at $0.013579, $0.000001 judged, $1.000003 charged.
    expect(d.cost).toBe("1.371918");
    expect(d.cost_by_role).toEqual({ scoring: "0.040738", generation: "1.33118" });
    expect(parseUsd(d.cost_by_role.scoring) + parseUsd(d.cost_by_role.generation)).toBe(parseUsd(d.cost));
    expect(d.pass_rate).toBe("0.700000");
    expect(d.cost_per_passed_case).toBe(perPassed(d.cost, 7));
    expect(d.cost_per_passed_case).toBe("0.195988");
    expect(await audits("eval_run.outcomes_recorded")).toBe(1);
  });

  it("computes cost per passed case exactly for every count, and null when nothing passed", async () => {
    const run = runs[0] ?? "";
    for (const [passed, failed, errored] of [
      [1, 0, 0],
      [2, 1, 0],
      [3, 0, 3],
      [6, 0, 0],
      [13, 1, 1],
      [1_000_000_000, 0, 1],
      [999_999_937, 1_000_000_000, 1_000_000_000],
    ] as const) {
      await ok("PUT", `/v1/eval-runs/${run}/outcomes`, { outcomes: { passed, failed, errored } });
      const d = await detail(run);
      expect(d.cost_per_passed_case, `${passed}`).toBe(perPassed(d.cost, passed));
      const all = BigInt(passed + failed + errored);
      const units = (BigInt(passed) * 2_000_000n + all) / (2n * all);
      expect(d.pass_rate).toBe(`${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`);
    }
    await ok("PUT", `/v1/eval-runs/${run}/outcomes`, { outcomes: { failed: 4 } });
    const none = await detail(run);
    expect(none).toMatchObject({
      outcomes: { passed: 0, failed: 4, errored: 0 },
      pass_rate: "0.000000",
      cost_per_passed_case: null,
    });
    await ok("PUT", `/v1/eval-runs/${run}/outcomes`, { outcomes: {} });
    expect(await detail(run)).toMatchObject({ pass_rate: null, cost_per_passed_case: null });
    // The counts at the top level are the same call.
    await ok("PUT", `/v1/eval-runs/${run}/outcomes`, { passed: 3, errored: 1 });
    expect(await detail(run)).toMatchObject({
      outcomes: { passed: 3, failed: 0, errored: 1 },
      pass_rate: "0.750000",
    });
  });

  it("refuses bad outcomes with 400 in words and changes nothing", async () => {
    const run = runs[0] ?? "";
    await ok("PUT", `/v1/eval-runs/${run}/outcomes`, { outcomes: { passed: 7, failed: 2, errored: 1 } });
    const before = JSON.stringify(await detail(run));
    const auditsBefore = await audits("eval_run.outcomes_recorded");
    for (const bad of [
      { passed: -1 },
      { failed: 1.5 },
      { errored: "3" },
      { passed: 1_000_000_001 },
      { passed: 2 ** 53 + 1 },
      { passed: null },
      { passed: 1, skipped: 2 },
      [],
      "7",
    ])
      for (const [method, path] of [
        ["PUT", "outcomes"],
        ["POST", "finish"],
      ] as const) {
        const res = await call(method, `/v1/eval-runs/${run}/${path}`, { outcomes: bad });
        expect(res.statusCode, `${path} ${JSON.stringify(bad)}: ${res.body}`).toBe(400);
        expect(res.json().error.code).toBe("invalid_request");
        expect(res.json().error.message).toMatch(/outcomes|skipped/);
      }
    expect((await call("PUT", `/v1/eval-runs/${run}/outcomes`, {})).statusCode).toBe(400);
    for (const bad of [{ passed: -1 }, { failed: "2" }, { passed: 1, skipped: 2 }]) {
      const res = await call("PUT", `/v1/eval-runs/${run}/outcomes`, bad);
      expect(res.statusCode, `top level ${JSON.stringify(bad)}: ${res.body}`).toBe(400);
      expect(res.json().error.message).toMatch(/outcomes|skipped/);
    }
    expect(JSON.stringify(await detail(run))).toBe(before);
    expect(await audits("eval_run.outcomes_recorded")).toBe(auditsBefore);
  });

  it("finishes with outcomes: replaces them, audits it and sends eval_run.finished with the figures", async () => {
    const run = runs[1] ?? "";
    await ok("PUT", `/v1/eval-runs/${run}/outcomes`, { outcomes: { passed: 1 } });
    const done = await ok<{ finished_at: string; outcomes: unknown; pass_rate: string }>(
      "POST",
      `/v1/eval-runs/${run}/finish`,
      {
        outcomes: { passed: 3, failed: 1 },
      },
    );
    expect(done).toMatchObject({ outcomes: { passed: 3, failed: 1, errored: 0 }, pass_rate: "0.750000" });
    const again = await ok<{ finished_at: string }>("POST", `/v1/eval-runs/${run}/finish`);
    expect(again.finished_at).toBe(done.finished_at);
    expect(await audits("eval_run.finished")).toBe(1);
    const events = rowsOf<{ payload: string | { data: EvalRunFigures; type: string } }>(
      await suite.p.database.db.execute(
        sql`select payload from webhook_deliveries where event_type = 'eval_run.finished' and organization_uuid = ${f.acmeId}`,
      ),
    ).map((r) => (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload));
    expect(events).toHaveLength(1);
    const d = await detail(run);
    // 2 generations at $0.047311, 5 jailbreak scorings at $0.013579.
    expect(events[0]?.data).toMatchObject({
      eval_run_uuid: run,
      eval_name: "Jailbreak Sweep",
      finished_at: done.finished_at,
      events: 2,
      cost: "0.162517",
      outcomes: { passed: 3, failed: 1, errored: 0 },
      pass_rate: "0.750000",
      cost_per_passed_case: perPassed("0.162517", 3),
      cost_by_role: { generation: "0.094622", scoring: "0.067895" },
    });
    expect(d).toMatchObject({ cost: "0.162517", cost_per_passed_case: "0.054172" });
  });

  it("lists runs with their figures, sorted by pass rate and by cost per passed case (runs without last)", async () => {
    const list = await ok<EvalRunList>("GET", `/v1/eval-runs?workspace_uuid=${ws}&sort=-pass_rate`);
    expect(list.eval_runs.map((r) => r.eval_run_uuid)).toEqual([runs[1], runs[0], runs[2]]);
    expect(list.eval_runs[0]).toMatchObject({ pass_rate: "0.750000", cost_per_passed_case: "0.054172" });
    expect(list.eval_runs[2]).toMatchObject({
      outcomes: null,
      pass_rate: null,
      cost_by_role: { generation: "0.00", scoring: "0.00" },
    });
    const cheap = await ok<EvalRunList>(
      "GET",
      `/v1/eval-runs?workspace_uuid=${ws}&sort=cost_per_passed_case`,
    );
    expect(cheap.eval_runs.map((r) => r.eval_run_uuid)).toEqual([runs[1], runs[0], runs[2]]);
    const dear = await ok<EvalRunList>(
      "GET",
      `/v1/eval-runs?workspace_uuid=${ws}&sort=-cost_per_passed_case&page_size=1`,
    );
    expect(dear).toMatchObject({ total: 3, eval_runs: [{ eval_run_uuid: runs[0] }] });
  });

  it("groups the usage report by run with each run's outcomes, pass rate and cost per passed case", async () => {
    const since = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const report = await ok<UsageReportPage>(
      "GET",
      `/v1/usage/report?starting_at=${since}&bucket_width=1mo&group_by=eval_run&workspace_uuid=${ws}`,
    );
    const row = (run: string) => report.data.filter((r) => r.eval_run_uuid === run);
    const [first] = row(runs[0] ?? "");
    expect(first).toMatchObject({ outcomes: { passed: 7, failed: 2, errored: 1 }, pass_rate: "0.700000" });
    expect(first?.cost_per_passed_case).toBe(perPassed(first?.cost ?? "", 7));
    expect(row(runs[1] ?? "")[0]).toMatchObject({ pass_rate: "0.750000", cost_per_passed_case: "0.054172" });
  });

  it("compares 2 to 10 runs in the order asked, with the difference from the first", async () => {
    const [a = "", b = "", c = ""] = runs;
    const cmp = await ok<EvalRunComparison>(
      "GET",
      `/v1/eval-runs/compare?eval_run_uuid=${b}&eval_run_uuid=${a}&eval_run_uuid=${c}`,
    );
    expect(cmp.runs.map((r) => r.eval_run_uuid)).toEqual([b, a, c]);
    const [first, second, third] = cmp.runs;
    expect(first?.difference).toEqual({
      cost: "0.00",
      events: 0,
      pass_rate: "0.000000",
      cost_per_passed_case: "0.00",
    });
    expect(second?.difference).toEqual({
      cost: formatUsdExact(parseUsd("1.371918") - parseUsd("0.162517")),
      events: 2,
      pass_rate: "-0.050000",
      cost_per_passed_case: formatUsdExact(parseUsd("0.195988") - parseUsd("0.054172")),
    });
    expect(third).toMatchObject({ events: 0, cost: "0.00", pass_rate: null, finished_at: null });
    expect(third?.difference).toMatchObject({ pass_rate: null, cost_per_passed_case: null });
    expect(second?.cost_by_operation.map((o) => o.operation)).toEqual(["generation", "scoring", "Judge"]);
    expect(second?.cost_by_eval_type).toEqual([
      { eval_type: "safety", events: 1, cost: "1.000003" },
      { eval_type: "jailbreak", events: 3, cost: "0.371915" },
    ]);
    expect(first?.started_at).toBeTruthy();
    expect(first?.finished_at).toBeTruthy();
  });

  it("refuses a comparison of one run, eleven, a repeat; another organization's run is a 404", async () => {
    const q = (ids: string[]) =>
      `/v1/eval-runs/compare?${ids.map((id) => `eval_run_uuid=${encodeURIComponent(id)}`).join("&")}`;
    const [a = "", b = ""] = runs;
    for (const ids of [[a], [], Array.from({ length: 11 }, (_, i) => `r${i}`), [a, a]]) {
      const res = await call("GET", q(ids));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(/eval_run_uuid/);
    }
    expect((await call("GET", q([a, "no-such-run"]))).statusCode).toBe(404);
    expect((await call("GET", q([a, b]), undefined, "other")).statusCode).toBe(404);
    expect((await call("GET", q([a, b]), undefined, "member")).statusCode).toBe(403);
    expect(
      (await call("PUT", `/v1/eval-runs/${a}/outcomes`, { outcomes: { passed: 1 } }, "other")).statusCode,
    ).toBe(404);
  });
  it("takes outcomes from a member of the run's workspace, and from nobody outside it", async () => {
    const run = runs[2] ?? "";
    const outsider = await call(
      "PUT",
      `/v1/eval-runs/${run}/outcomes`,
      { outcomes: { passed: 1 } },
      "member",
    );
    expect(outsider.statusCode, outsider.body).toBe(404);
    const added = await call("POST", `/v1/workspaces/${ws}/members?user_email=member@acme.test`);
    expect(added.statusCode, added.body).toBe(201);
    const res = await call(
      "PUT",
      `/v1/eval-runs/${run}/outcomes`,
      { outcomes: { passed: 2, errored: 2 } },
      "member",
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      outcomes: { passed: 2, failed: 0, errored: 2 },
      pass_rate: "0.500000",
    });
    const done = await call(
      "POST",
      `/v1/eval-runs/${run}/finish`,
      { outcomes: { passed: 3, errored: 1 } },
      "member",
    );
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ pass_rate: "0.750000" });
  });
});
