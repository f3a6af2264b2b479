// Reservations: an eval run started with an estimate holds it against the hard limits covering
// its workspace. A run that does not fit is refused with 402 and its shortfall before anything is
// spent; usage moves from the hold to "used"; finishing frees the unused part; an idle run's hold
// expires by itself; and concurrent starts, finishes and ingestion never let two runs reserve the
// same last dollars (fast-check, on both databases).
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SPEND_LIMIT_ERROR_CODE } from "../../contract/budgets";
import { parseUsd } from "../../contract/money";
import { setUpBudgets } from "./budgets-fixture";
import { backends } from "./harness";
import { rowsOf } from "./tenants";
import { sendAsOperator } from "./usage-setup";
import { productWithWorkspaces } from "./workspaces-fixture";

describe.each(backends())("reservations on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  let safety = "";
  let redTeam = "";
  let seq = 0;
  beforeAll(async () => {
    b = await setUpBudgets(s.p, s.f);
    safety = await s.f.idOf("Safety Research");
    redTeam = await s.f.idOf("Red Team");
  });

  const start = (body: Record<string, unknown>, who: "memberKey" | "admin" | "member" = "memberKey") =>
    s.f.call(who, "POST", "/v1/eval-runs", body);
  const allowance = async (ws: string) =>
    (await s.f.call("admin", "GET", `/v1/usage/allowance?workspace_uuid=${ws}`)).json();
  /** $usd of a run's usage ($0.01 generation events), sent by the eval service. */
  const runUsage = (ws: string, run: string, usd: number) => {
    seq += 1;
    return sendAsOperator(s.p, s.f.acmeId, [
      {
        event_id: `res-${seq}-${Math.random().toString(36).slice(2)}`,
        occurred_at: new Date(Date.now() - 1000).toISOString(),
        operation: "generation",
        eval_type: "accuracy",
        workspace_uuid: ws,
        eval_run_uuid: run,
        quantity: Math.round(usd * 100),
      },
    ]);
  };
  const runCount = async () =>
    Number(rowsOf<{ n: number }>(await b.db.execute(sql`select count(*)::int as n from eval_runs`))[0]?.n);

  it("refuses a run that does not fit with 402 and its shortfall, before anything is started", async () => {
    const budget = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: safety,
      amount: "10",
      hard_limit: true,
    });
    await b.spend(s.f.acmeId, safety, 4);
    const before = await runCount();
    const refused = await start({ workspace_uuid: safety, estimate: { cost: "7" } });
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json().error).toMatchObject({
      code: SPEND_LIMIT_ERROR_CODE,
      shortfall: "1.00",
      estimate: "7.00",
      free: "6.00",
    });
    expect(refused.json().error.message).toContain("$1.00 short");
    expect(await runCount()).toBe(before);

    const run = await start({ workspace_uuid: safety, estimate: { cost: "5" } });
    expect(run.statusCode, run.body).toBe(201);
    expect(run.json().reservation).toMatchObject({
      estimate: "5.00",
      used: "0.00",
      held: "5.00",
      state: "held",
    });
    expect(await allowance(safety)).toMatchObject({
      spent: "4.00",
      reserved: "5.00",
      free: "1.00",
      allowed: true,
    });
    // The last dollar is not there for a second run of $2, but a run without an estimate may start.
    const second = await start({ workspace_uuid: safety, estimate: { cost: "2" } });
    expect(second.statusCode).toBe(402);
    expect(second.json().error.shortfall).toBe("1.00");
    expect((await start({ workspace_uuid: safety })).statusCode).toBe(201);
    // Another workspace is not held by this workspace's limit.
    expect((await start({ workspace_uuid: redTeam, estimate: { cost: "500" } }, "admin")).statusCode).toBe(
      201,
    );

    // Usage moves from the hold to spend: their sum, and so the free spend, stays.
    const id = run.json().eval_run_uuid as string;
    await runUsage(safety, id, 3);
    expect(await allowance(safety)).toMatchObject({ spent: "7.00", reserved: "2.00", free: "1.00" });

    // Finishing frees what the run did not use.
    const finished = await s.f.call("memberKey", "POST", `/v1/eval-runs/${id}/finish`);
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json().reservation).toMatchObject({
      used: "3.00",
      held: "0.00",
      state: "finished",
      expires_at: null,
    });
    expect(await allowance(safety)).toMatchObject({ spent: "7.00", reserved: "0.00", free: "3.00" });
    // Finishing again answers the same finish.
    const again = await s.f.call("memberKey", "POST", `/v1/eval-runs/${id}/finish`);
    expect(again.json().finished_at).toBe(finished.json().finished_at);

    // Usage past the estimate is recorded as always and reported on the run.
    await runUsage(safety, id, 4);
    const detail = await s.f.call("admin", "GET", `/v1/eval-runs/${id}`);
    expect(detail.json()).toMatchObject({
      cost: "7.00",
      reservation: { estimate: "5.00", used: "7.00", beyond_estimate: "2.00" },
    });
    await s.f.call("admin", "DELETE", `/v1/budgets/${budget.budget_uuid}`);
  });

  it("prices an estimate by events with the price rules, and releases an idle run's hold by itself", async () => {
    const budget = await b.createBudget("admin", {
      scope: "organization",
      amount: "100000",
      hard_limit: true,
    });
    const run = await start({
      workspace_uuid: safety,
      eval_type: "accuracy",
      estimate: {
        events: [
          { operation: "generation", count: 300 },
          { operation: "generation", count: 10, quantity: 5 },
        ],
      },
    });
    expect(run.statusCode, run.body).toBe(201);
    expect(run.json().reservation.estimate).toBe("3.50");
    const held = parseUsd((await allowance(safety)).reserved);
    expect(held).toBeGreaterThanOrEqual(3_500_000n);

    // An hour without usage: the hold is gone, with nothing to run.
    await b.db.execute(sql`
      update eval_runs set started_at = now() - interval '61 minutes' where eval_run_uuid = ${run.json().eval_run_uuid}`);
    expect(parseUsd((await allowance(safety)).reserved)).toBe(held - 3_500_000n);
    const detail = await s.f.call("admin", "GET", `/v1/eval-runs/${run.json().eval_run_uuid}`);
    expect(detail.json().reservation).toMatchObject({ state: "expired", held: "0.00" });

    for (const [estimate, message] of [
      [
        { cost: "1", events: [{ operation: "generation", count: 1 }] },
        "estimate takes either cost or events",
      ],
      [{}, "estimate takes either cost or events"],
      [{ cost: "-1" }, "estimate.cost must be a USD decimal string"],
      [{ events: [{ operation: "generation", count: 0 }] }, "count must be at least 1"],
      [{ events: [{ operation: "gen\u0000", count: 1 }] }, "must not contain NUL characters"],
    ] as const) {
      const res = await start({ workspace_uuid: safety, eval_type: "accuracy", estimate });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toContain(message);
    }
    await s.f.call("admin", "DELETE", `/v1/budgets/${budget.budget_uuid}`);
  });

  it("finishes only the caller's own organization's runs", async () => {
    const run = (await start({ workspace_uuid: safety, estimate: { cost: "1" } })).json()
      .eval_run_uuid as string;
    expect((await s.f.call("other", "POST", `/v1/eval-runs/${run}/finish`)).statusCode).toBe(404);
    expect((await s.f.call("admin", "POST", "/v1/eval-runs/not-a-run/finish")).statusCode).toBe(404);
    expect((await s.f.call("admin", "POST", "/v1/eval-runs/%00/finish")).statusCode).toBe(400);
    expect((await s.f.call("admin", "GET", `/v1/eval-runs/${run}`)).json().reservation.state).toBe("held");
  });

  it("never lets concurrent starts reserve the same free spend, with finishes and usage racing them", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("start" as const), cents: fc.integer({ min: 1, max: 600 }) }),
      fc.record({ kind: fc.constant("use" as const), cents: fc.integer({ min: 1, max: 300 }) }),
      fc.record({ kind: fc.constant("finish" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 12 }), async (ops) => {
        // A fresh workspace and a $10.00 hard limit for each case.
        seq += 1;
        const ws = (
          await s.f.call("admin", "POST", "/v1/workspaces/", {
            name: `Race ${seq}`,
            organization_uuid: s.f.acmeId,
          })
        ).json().workspace_uuid as string;
        const budget = await b.createBudget("admin", {
          scope: "workspace",
          workspace_uuid: ws,
          amount: "10",
          hard_limit: true,
        });
        // One run admitted first, for the usage and finishes to race the starts with.
        const first = await s.f.call("admin", "POST", "/v1/eval-runs", {
          workspace_uuid: ws,
          estimate: { cost: "3" },
        });
        expect(first.statusCode).toBe(201);
        const firstId = first.json().eval_run_uuid as string;
        // With a finish among the ops, the first run sends no usage: its $3 holds until the finish
        // and then frees entirely. Without one, its usage (within its estimate) races the starts,
        // moving spend from its hold to "used": its $3 stays taken throughout.
        const finishing = ops.some((o) => o.kind === "finish");
        let used = 0;
        const results = await Promise.all(
          ops.map(async (o) => {
            if (o.kind === "start") {
              const res = await s.f.call("admin", "POST", "/v1/eval-runs", {
                workspace_uuid: ws,
                estimate: { cost: (o.cents / 100).toFixed(2) },
              });
              expect([201, 402]).toContain(res.statusCode);
              return {
                cents: o.cents,
                admitted: res.statusCode === 201,
                shortfall: res.json().error?.shortfall,
              };
            }
            if (o.kind === "use" && !finishing) {
              const cents = Math.min(o.cents, 300 - used);
              used += cents;
              if (cents > 0) await runUsage(ws, firstId, cents / 100);
            } else if (o.kind === "finish")
              await s.f.call("admin", "POST", `/v1/eval-runs/${firstId}/finish`);
            return null;
          }),
        );
        const starts = results.filter((r) => r !== null);
        const admitted = starts.filter((r) => r.admitted).reduce((n, r) => n + r.cents, 0);
        // Every admitted estimate fits beside the first run's $3 (or, once it finished, in the
        // whole $10): no two starts were admitted on the same free spend.
        expect(admitted).toBeLessThanOrEqual(finishing ? 1000 : 700);
        // Every refusal was right when it was judged: free spend was never more than $7 less the
        // estimates admitted, so a refused estimate is more than that, by the shortfall it names.
        for (const r of starts.filter((x) => !x.admitted)) {
          expect(r.cents).toBeGreaterThan(700 - admitted);
          expect(parseUsd(r.shortfall)).toBeGreaterThan(0n);
        }
        const now = await allowance(ws);
        expect(parseUsd(now.spent) + parseUsd(now.reserved)).toBeLessThanOrEqual(10_000_000n);
        await s.f.call("admin", "DELETE", `/v1/budgets/${budget.budget_uuid}`);
      }),
      { numRuns: backend.name === "pglite" ? 12 : 8 },
    );
  }, 240_000);
});
