import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { EvalRun, EvalRunDetail, EvalRunList } from "../../contract/eval-runs";
import { formatUsdExact, parseUsd } from "../../contract/money";
import { budgets } from "../../server/db/schema";
import { backends, productPerSuite } from "./harness";
import { rowsOf } from "./tenants";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

type Rec = { eval_run_uuid: string | null; cost: string; operation: string; quantity: number };

const RUN_A = "run-alpha-0001";
const RUN_B = "run-beta-0002";
const RUN_JAN = "run-january-0003";

describe.each(backends())("eval runs on $name", (backend) => {
  const suite = productPerSuite(backend);
  let f: Fixture;
  const ws = { g1: "", g2: "" };
  let jan = "";
  let feb = "";

  const call = (
    method: "GET" | "POST" | "PUT",
    url: string,
    payload?: unknown,
    who: Parameters<Fixture["call"]>[0] = "other",
  ) => f.call(who, method, url, payload);
  const ok = async <T>(url: string, who: Parameters<Fixture["call"]>[0] = "other") => {
    const res = await call("GET", url, undefined, who);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  };
  const ids = (list: EvalRunList) => list.eval_runs.map((r) => r.eval_run_uuid);
  const event = (id: string, at: string, extra: Record<string, unknown>) => ({
    event_id: id,
    occurred_at: at,
    eval_type: "safety",
    operation: "generation",
    ...extra,
  });

  it("sets up Globex's usage: runs in two cycles, one event outside any run", async () => {
    const p = suite.p;
    f = await setUpWorkspaces(p);
    await setSamplePrices(p.database.db);
    for (const [key, name] of [
      ["g1", "Globex Evals"],
      ["g2", "Globex Red"],
    ] as const) {
      const res = await call("POST", "/v1/workspaces/", { name, organization_uuid: f.globexId });
      expect(res.statusCode, res.body).toBe(201);
      ws[key] = res.json().workspace_uuid;
    }
    await sendAsOperator(p, f.globexId, [
      event("a1", "2026-03-02T10:00:00Z", {
        eval_run_uuid: RUN_A,
        workspace_uuid: ws.g1,
        name: "Alpha Eval",
        quantity: 2,
      }),
      event("a2", "2026-03-02T10:05:00Z", {
        eval_run_uuid: RUN_A,
        workspace_uuid: ws.g1,
        name: "Alpha Eval",
        quantity: 3,
      }),
      event("a3", "2026-03-02T10:09:00Z", {
        eval_run_uuid: RUN_A,
        workspace_uuid: ws.g1,
        name: "Alpha Eval",
        operation: "scoring",
      }),
      // An explicit charge (a price adjustment) belongs to the run as any other event.
      event("a4", "2026-03-02T10:10:00Z", {
        eval_run_uuid: RUN_A,
        workspace_uuid: ws.g1,
        name: "Alpha Eval",
        operation: "scoring",
        cost: "1.25",
        notes: "re-scored",
      }),
      event("b1", "2026-03-05T08:00:00Z", { eval_run_uuid: RUN_B, workspace_uuid: ws.g2, name: "Beta Eval" }),
      event("j1", "2026-01-20T08:00:00Z", {
        eval_run_uuid: RUN_JAN,
        workspace_uuid: ws.g1,
        name: "January Eval",
      }),
      event("j2", "2026-01-20T09:00:00Z", {
        eval_run_uuid: RUN_JAN,
        workspace_uuid: ws.g1,
        name: "January Eval",
      }),
      event("none", "2026-03-03T08:00:00Z", { workspace_uuid: ws.g1, name: "No Run" }),
    ]);
    // The cycles after the usage: usage sent after a cycle closes is billed late, in the open one.
    jan = await addCycle(p, f.globexId, "2026-01-01", "2026-02-01");
    feb = await addCycle(p, f.globexId, "2026-02-01", null);
  });

  it("lists the cycle's runs with their events, quantity and exact cost, newest first", async () => {
    const list = await ok<EvalRunList>("/v1/eval-runs");
    expect(list.billing_cycle_uuid).toBe(feb);
    expect(ids(list)).toEqual([RUN_B, RUN_A]);
    expect(list.total).toBe(2);
    const a = list.eval_runs.find((r) => r.eval_run_uuid === RUN_A) as EvalRun;
    expect(a).toMatchObject({
      eval_name: "Alpha Eval",
      eval_type: "safety",
      workspace_uuid: ws.g1,
      workspace_name: "Globex Evals",
      started_by: null,
      started_at: "2026-03-02T10:00:00.000Z",
      last_event_at: "2026-03-02T10:10:00.000Z",
      events: 4,
      quantity: 7,
    });
    // 5 generations at $0.0125 (safety), one scoring at $0.002, plus the $1.25 charge.
    expect(a.cost).toBe("1.3145");
    const january = await ok<EvalRunList>(`/v1/eval-runs?billing_cycle_uuid=${jan}`);
    expect(ids(january)).toEqual([RUN_JAN]);
    expect(january.eval_runs[0]).toMatchObject({ events: 2, cost: "0.025" });
  });

  it("sorts by cost, events and start in either direction", async () => {
    expect(ids(await ok<EvalRunList>("/v1/eval-runs?sort=cost"))).toEqual([RUN_B, RUN_A]);
    expect(ids(await ok<EvalRunList>("/v1/eval-runs?sort=-cost"))).toEqual([RUN_A, RUN_B]);
    expect(ids(await ok<EvalRunList>("/v1/eval-runs?sort=-events"))).toEqual([RUN_A, RUN_B]);
    expect(ids(await ok<EvalRunList>("/v1/eval-runs?sort=started_at"))).toEqual([RUN_A, RUN_B]);
  });

  it("searches the run id and the eval name, and filters by workspace", async () => {
    expect(ids(await ok<EvalRunList>("/v1/eval-runs?search=alpha%20EVAL"))).toEqual([RUN_A]);
    expect(ids(await ok<EvalRunList>("/v1/eval-runs?search=beta-00"))).toEqual([RUN_B]);
    expect((await ok<EvalRunList>("/v1/eval-runs?search=%25")).total).toBe(0);
    expect(ids(await ok<EvalRunList>(`/v1/eval-runs?workspace_uuid=${ws.g2}`))).toEqual([RUN_B]);
    const both = await ok<EvalRunList>(`/v1/eval-runs?workspace_uuid=${ws.g2}&workspace_uuid=${ws.g1}`);
    expect(both.total).toBe(2);
  });

  it("pages, and still counts the runs past the last page", async () => {
    const second = await ok<EvalRunList>("/v1/eval-runs?page_size=1&page=2");
    expect(second).toMatchObject({ total: 2, page: 2, page_size: 1 });
    expect(ids(second)).toEqual([RUN_A]);
    const past = await ok<EvalRunList>("/v1/eval-runs?page_size=1&page=9");
    expect(past.eval_runs).toEqual([]);
    expect(past.total).toBe(2);
  });

  it("a run's page reconciles with the records listed for it: events, cost and per operation", async () => {
    const detail = await ok<EvalRunDetail>(`/v1/eval-runs/${RUN_A}`);
    expect(detail.billing_cycle_uuid).toBe(feb);
    const page = await ok<{ records: Rec[]; total: number }>(
      `/v1/usage/records?eval_run_uuid=${RUN_A}&billing_cycle_uuid=${detail.billing_cycle_uuid}&page_size=500`,
    );
    expect(page.total).toBe(detail.events);
    expect(page.records.every((r) => r.eval_run_uuid === RUN_A)).toBe(true);
    const sum = page.records.reduce((s, r) => s + parseUsd(r.cost), 0n);
    expect(formatUsdExact(sum)).toBe(detail.cost);
    expect(detail.operations).toEqual([
      { operation: "scoring", events: 2, quantity: 2, cost: "1.252" },
      { operation: "generation", events: 2, quantity: 5, cost: "0.0625" },
    ]);
    const opsTotal = detail.operations.reduce((s, o) => s + parseUsd(o.cost), 0n);
    expect(formatUsdExact(opsTotal)).toBe(detail.cost);
    // The summary under the same run filter tells the same totals.
    const summary = await ok<{ totals: { events: number; cost: string } }>(
      `/v1/usage/summary?eval_run_uuid=${RUN_A}&billing_cycle_uuid=${feb}`,
    );
    expect(summary.totals).toMatchObject({ events: 4, cost: detail.cost });
  });

  it("opens a run in the cycle it started in unless another is named", async () => {
    const detail = await ok<EvalRunDetail>(`/v1/eval-runs/${RUN_JAN}`);
    expect(detail).toMatchObject({ billing_cycle_uuid: jan, events: 2, cost: "0.025" });
    const res = await call("GET", `/v1/eval-runs/${RUN_JAN}?billing_cycle_uuid=${feb}`);
    expect(res.statusCode).toBe(404);
    expect((await call("GET", "/v1/eval-runs/no-such-run")).json().error.code).toBe("not_found");
  });

  it("starts a run: listed at once with no events, then with the usage sent under its id", async () => {
    const res = await call("POST", "/v1/eval-runs", {
      workspace_uuid: ws.g1,
      name: " Gamma Eval ",
      eval_type: "accuracy",
    });
    expect(res.statusCode, res.body).toBe(201);
    const started = res.json();
    expect(started).toMatchObject({
      workspace_uuid: ws.g1,
      eval_name: "Gamma Eval",
      eval_type: "accuracy",
      started_by: "other@globex.test",
    });
    const run = started.eval_run_uuid as string;
    const listed = (await ok<EvalRunList>("/v1/eval-runs")).eval_runs.find((r) => r.eval_run_uuid === run);
    expect(listed).toMatchObject({
      events: 0,
      cost: "0.00",
      last_event_at: null,
      workspace_name: "Globex Evals",
    });
    expect((await ok<EvalRunDetail>(`/v1/eval-runs/${run}`)).operations).toEqual([]);

    await sendAsOperator(suite.p, f.globexId, [
      event("g1", new Date().toISOString(), {
        eval_run_uuid: run,
        workspace_uuid: ws.g1,
        name: "gamma (from events)",
        eval_type: "accuracy",
      }),
    ]);
    const after = await ok<EvalRunDetail>(`/v1/eval-runs/${run}`);
    expect(after).toMatchObject({
      events: 1,
      cost: "0.01",
      eval_name: "Gamma Eval",
      started_by: "other@globex.test",
    });
    expect(Date.parse(after.started_at)).toBe(Date.parse(started.started_at));
    // The list's kept runs follow the usage write at once.
    const relisted = await ok<EvalRunList>("/v1/eval-runs?search=gamma");
    expect(relisted.total).toBe(1);
    expect(relisted.eval_runs[0]).toMatchObject({ eval_run_uuid: run, events: 1, cost: "0.01" });
  });

  it("names workspaces as they are now (a rename writes no usage)", async () => {
    await ok<EvalRunList>("/v1/eval-runs");
    const renamed = await call("PUT", `/v1/workspaces/${ws.g2}`, {
      name: "Globex Red 2",
      organization_uuid: f.globexId,
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const list = await ok<EvalRunList>(`/v1/eval-runs?workspace_uuid=${ws.g2}`);
    expect(list.eval_runs.map((r) => r.workspace_name)).toEqual(["Globex Red 2"]);
  });

  it("refuses to start a run in a workspace past its hard limit (402), and records nothing", async () => {
    const db = suite.p.database.db;
    await db.insert(budgets).values({
      organizationUuid: f.globexId,
      workspaceUuid: ws.g2,
      amountMicros: 1n,
      thresholds: [100],
      hardLimit: true,
    });
    const count = async () =>
      rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from eval_runs where workspace_uuid = ${ws.g2}`),
      )[0]?.n;
    const before = await count();
    const res = await call("POST", "/v1/eval-runs", { workspace_uuid: ws.g2, name: "Blocked" });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json().error.code).toBe("spend_limit_exceeded");
    expect(res.json().error.message).toMatch(/hard spend limit/);
    expect(await count()).toBe(before);
    // The other workspace is not limited.
    expect((await call("POST", "/v1/eval-runs", { workspace_uuid: ws.g1 })).statusCode).toBe(201);
  });

  it("members start runs in their own workspaces only, and do not read runs", async () => {
    const safety = await f.idOf("Safety Research");
    const redTeam = await f.idOf("Red Team");
    expect((await call("POST", "/v1/eval-runs", { workspace_uuid: safety }, "member")).statusCode).toBe(201);
    expect((await call("POST", "/v1/eval-runs", { workspace_uuid: safety }, "memberKey")).statusCode).toBe(
      201,
    );
    expect((await call("POST", "/v1/eval-runs", { workspace_uuid: redTeam }, "member")).statusCode).toBe(404);
    expect((await call("GET", "/v1/eval-runs", undefined, "member")).statusCode).toBe(403);
    expect((await call("GET", `/v1/eval-runs/${RUN_A}`, undefined, "member")).statusCode).toBe(403);
    // Another organization's workspace and run are not found.
    expect((await call("POST", "/v1/eval-runs", { workspace_uuid: ws.g1 }, "admin")).statusCode).toBe(404);
    expect((await call("GET", `/v1/eval-runs/${RUN_A}`, undefined, "admin")).statusCode).toBe(404);
  });

  it("answers bad input with 400 and its reason", async () => {
    const bad = async (method: "GET" | "POST", url: string, payload: unknown, reason: RegExp) => {
      const res = await call(method, url, payload);
      expect(res.statusCode, `${url} ${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      expect(res.json().error.message).toMatch(reason);
    };
    await bad("GET", "/v1/eval-runs?sort=name", undefined, /sort must be one of/);
    await bad("GET", "/v1/eval-runs?page_size=101", undefined, /page_size must be at most 100/);
    await bad("GET", "/v1/eval-runs?page=0", undefined, /page must be at least 1/);
    await bad("GET", "/v1/eval-runs?workspace_uuid=nope", undefined, /workspace_uuid must be a UUID/);
    await bad("GET", "/v1/eval-runs?billing_cycle_uuid=1", undefined, /billing_cycle_uuid must be a UUID/);
    await bad("GET", "/v1/eval-runs?colour=red", undefined, /colour/);
    // Longer run ids than any event can carry never reach the route.
    const long = await call("GET", `/v1/eval-runs/${"x".repeat(201)}`);
    expect(long.statusCode).toBe(414);
    expect(long.json().error.code).toBe("uri_too_long");
    await bad("POST", "/v1/eval-runs", {}, /workspace_uuid/);
    await bad("POST", "/v1/eval-runs", { workspace_uuid: "nope" }, /workspace_uuid must be a UUID/);
    await bad("POST", "/v1/eval-runs", { workspace_uuid: ws.g1, name: 5 }, /name must be a string/);
    await bad("POST", "/v1/eval-runs", { workspace_uuid: ws.g1, name: "x".repeat(501) }, /at most 500/);
    await bad("POST", "/v1/eval-runs", { workspace_uuid: ws.g1, owner: "me" }, /owner/);
    await bad("GET", `/v1/usage/records?eval_run_uuid=${"x".repeat(201)}`, undefined, /at most 200/);
  });
});
