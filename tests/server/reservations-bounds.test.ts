// Reservations are bounded as a whole: no run starts on a hard limit with nothing free, whatever
// its estimate (0 included); an estimate's total, given as a cost or as events priced by the
// rules, is capped at MAX_ESTIMATE_USD and refused above it with a 400, however large the products
// of its lines (never a 5xx); and administrators see every open reservation beside the budgets and
// can release one (audited). A fast-check suite throws estimates at the start on both databases.
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SPEND_LIMIT_ERROR_CODE } from "../../contract/budgets";
import { parseUsd } from "../../contract/money";
import { MAX_ESTIMATE_MICROS, MAX_ESTIMATE_TEXT } from "../../contract/reservations";
import { setUpBudgets } from "./budgets-fixture";
import { backends } from "./harness";
import { rowsOf } from "./tenants";
import { productWithWorkspaces, type Who } from "./workspaces-fixture";

/** generation events of eval type accuracy cost $0.01 under the suite's sample prices. */
const GENERATION_MICROS = 10_000n;
const CAP_MESSAGE = `above the largest estimate accepted, ${MAX_ESTIMATE_TEXT}`;

describe.each(backends())("reservations bounded as a whole on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  let seq = 0;
  beforeAll(async () => {
    b = await setUpBudgets(s.p, s.f);
  });

  const start = (ws: string, estimate?: unknown, who: Who = "memberKey") =>
    s.f.call(who, "POST", "/v1/eval-runs", {
      workspace_uuid: ws,
      eval_type: "accuracy",
      ...(estimate === undefined ? {} : { estimate }),
    });
  const finish = (run: string) => s.f.call("admin", "POST", `/v1/eval-runs/${run}/finish`);
  const runCount = async () =>
    Number(rowsOf<{ n: number }>(await b.db.execute(sql`select count(*)::int as n from eval_runs`))[0]?.n);
  const maxReserved = async () =>
    BigInt(
      rowsOf<{ m: string }>(
        await b.db.execute(sql`select coalesce(max(reserved_micros), 0)::text as m from eval_runs`),
      )[0]?.m ?? "0",
    );
  /** A new workspace the member belongs to, with a hard limit of `amount` when given. */
  async function workspace(amount?: string) {
    seq += 1;
    const ws = (
      await s.f.call("admin", "POST", "/v1/workspaces/", {
        name: `Bounds ${seq}`,
        organization_uuid: s.f.acmeId,
      })
    ).json().workspace_uuid as string;
    const member = await s.f.call("admin", "POST", `/v1/workspaces/${ws}/members`, {
      user_email: "member@acme.test",
    });
    expect(member.statusCode, member.body).toBeLessThan(300);
    if (amount)
      await b.createBudget("admin", { scope: "workspace", workspace_uuid: ws, amount, hard_limit: true });
    return ws;
  }

  it("starts nothing on a hard limit with nothing free, whatever the estimate", async () => {
    const ws = await workspace("10");
    const filler = await start(ws, { cost: "10" });
    expect(filler.statusCode, filler.body).toBe(201);
    const before = await runCount();
    for (const estimate of [{ cost: "0" }, { cost: "0.000000" }, { cost: "0.000001" }, undefined]) {
      const res = await start(ws, estimate);
      expect(res.statusCode, `${JSON.stringify(estimate)}: ${res.body}`).toBe(402);
      expect(res.json().error.code).toBe(SPEND_LIMIT_ERROR_CODE);
      expect(res.json().error.message).toContain("reached its hard spend limit");
    }
    expect(await runCount()).toBe(before);
    // With a cent free again, an estimate of 0 may start (it holds nothing).
    await finish(filler.json().eval_run_uuid);
    expect((await start(ws, { cost: "9.99" })).statusCode).toBe(201);
    expect((await start(ws, { cost: "0" })).statusCode).toBe(201);
    // It held nothing: the cent is still free; once taken, 0 starts nothing again.
    expect((await start(ws, { cost: "0.01" })).statusCode).toBe(201);
    expect((await start(ws, { cost: "0.000000" })).statusCode).toBe(402);
  });

  it("caps the estimate's total however it is given, computed without overflow", async () => {
    const ws = await workspace();
    const before = await runCount();
    for (const [line, total] of [
      [{ count: 1_000_000_000, quantity: 1000 }, "$10,000,000,000.00"],
      [{ count: 1_000_000_000, quantity: 1_000_000_000 }, "$10,000,000,000,000,000.00"],
    ] as const) {
      const res = await start(ws, { events: [{ operation: "generation", ...line }] });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toContain(CAP_MESSAGE);
      expect(res.json().error.message).toContain(total);
    }
    // Fifty lines each under the cap, together above it.
    const lines = Array.from({ length: 50 }, () => ({
      operation: "generation",
      count: 1_000_000_000,
      quantity: 3,
    }));
    expect((await start(ws, { events: lines })).statusCode).toBe(400);
    const cost = await start(ws, { cost: "1000000000.000001" });
    expect(cost.statusCode).toBe(400);
    expect(cost.json().error.message).toContain(`at most ${MAX_ESTIMATE_TEXT}`);
    expect(await runCount()).toBe(before);
    // Exactly the cap is accepted, either way.
    for (const estimate of [
      { events: [{ operation: "generation", count: 1_000_000_000, quantity: 100 }] },
      { cost: "1000000000" },
    ]) {
      const res = await start(ws, estimate);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().reservation.estimate).toBe("1000000000.00");
      await finish(res.json().eval_run_uuid);
    }
  });

  it("shows administrators every open reservation and lets them release one, audited", async () => {
    const ws = await workspace("100");
    const run = await start(ws, { cost: "60" });
    expect(run.statusCode, run.body).toBe(201);
    const id = run.json().eval_run_uuid as string;
    const unheld = (await start(ws)).json().eval_run_uuid as string;
    // The member's run holds most of the workspace's free spend: the administrator finds it.
    const list = await s.f.call("admin", "GET", "/v1/budgets/reservations");
    expect(list.statusCode, list.body).toBe(200);
    const mine = list.json().reservations.find((r: { eval_run_uuid: string }) => r.eval_run_uuid === id);
    expect(mine).toMatchObject({
      workspace_uuid: ws,
      workspace_name: expect.stringMatching(/^Bounds /),
      started_by: "member@acme.test",
      estimate: "60.00",
      used: "0.00",
      held: "60.00",
    });
    expect(Date.parse(mine.expires_at) - Date.now()).toBeGreaterThan(55 * 60_000);
    expect(list.json().total).toBe(list.json().reservations.length);
    expect(parseUsd(list.json().held)).toBeGreaterThanOrEqual(60_000_000n);
    // Members (and their keys) do not see or release them; another organization finds no such run.
    for (const who of ["member", "memberKey"] as const) {
      expect((await s.f.call(who, "GET", "/v1/budgets/reservations")).statusCode).toBe(403);
      expect((await s.f.call(who, "POST", `/v1/budgets/reservations/${id}/release`)).statusCode).toBe(403);
    }
    const other = await s.f.call("other", "GET", "/v1/budgets/reservations");
    expect(other.statusCode).toBe(200);
    expect(other.body).not.toContain(id);
    expect((await s.f.call("other", "POST", `/v1/budgets/reservations/${id}/release`)).statusCode).toBe(404);
    expect((await start(ws, { cost: "50" })).statusCode).toBe(402);

    const released = await s.f.call("admin", "POST", `/v1/budgets/reservations/${id}/release`);
    expect(released.statusCode, released.body).toBe(200);
    expect(released.json()).toMatchObject({
      eval_run_uuid: id,
      released: "60.00",
      reservation: { state: "finished", held: "0.00" },
    });
    expect((await start(ws, { cost: "50" })).statusCode).toBe(201);
    const after = (await s.f.call("admin", "GET", "/v1/budgets/reservations")).json();
    expect(after.reservations.map((r: { eval_run_uuid: string }) => r.eval_run_uuid)).not.toContain(id);

    for (const [run2, status] of [
      [id, 409],
      [unheld, 409],
      ["no-such-run", 404],
    ] as const) {
      const res = await s.f.call("admin", "POST", `/v1/budgets/reservations/${run2}/release`);
      expect(res.statusCode, res.body).toBe(status);
    }
    const audit = await s.f.call("admin", "GET", `/v1/audit-log?target_type=eval_run&target_id=${id}`);
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json().entries).toEqual([
      expect.objectContaining({
        action: "eval_run.reservation_released",
        actor_email: "admin@acme.test",
        before: expect.objectContaining({
          held: "60.00",
          started_by: "member@acme.test",
          workspace_uuid: ws,
        }),
        after: expect.objectContaining({ state: "finished", held: "0.00" }),
      }),
    ]);
  });

  it("never answers 5xx, never reserves beyond the cap, never starts on 0 free (fast-check)", async () => {
    const unlimited = await workspace();
    const limited = await workspace("1");
    const count = fc.oneof(
      fc.constantFrom(1, 1_000, 1_000_000, 999_999_999, 1_000_000_000),
      fc.integer({ min: 1, max: 1_000_000_000 }),
    );
    const line = fc.record(
      { operation: fc.constantFrom("generation", "generation", "no-such-op"), count, quantity: count },
      { requiredKeys: ["operation", "count"] },
    );
    const estimate = fc.oneof(
      fc.record({
        cost: fc.oneof(
          fc.constantFrom("0", "0.000000", "0.000001", "0.5", "1", "1000000000", "1000000000.000001"),
          fc.constantFrom("99999999999999999999", "9223372036854.775807", "18446744073709551616"),
          fc.bigInt({ min: 0n, max: MAX_ESTIMATE_MICROS * 2n }).map((m) => (Number(m) / 1e6).toFixed(6)),
        ),
      }),
      fc.record({ events: fc.array(line, { minLength: 1, maxLength: 50 }) }),
    );
    let filler: string | null = null;
    const outcomes = new Set<number>();
    await fc.assert(
      fc.asyncProperty(estimate, fc.constantFrom("unlimited", "free", "full"), async (e, mode) => {
        // "full": a run holds the limited workspace's whole $1; "free": nothing does.
        if (mode === "full" && !filler) {
          const res = await start(limited, { cost: "1" }, "admin");
          expect(res.statusCode, res.body).toBe(201);
          filler = res.json().eval_run_uuid as string;
        } else if (mode === "free" && filler) {
          await finish(filler);
          filler = null;
        }
        const before = await runCount();
        const res = await start(mode === "unlimited" ? unlimited : limited, e);
        outcomes.add(res.statusCode);
        expect(res.statusCode, res.body).toBeLessThan(500);
        expect([201, 400, 402], res.body).toContain(res.statusCode);
        const priced =
          "events" in e && e.events.every((l) => l.operation === "generation")
            ? e.events.reduce(
                (sum, l) => sum + GENERATION_MICROS * BigInt(l.quantity ?? 1) * BigInt(l.count),
                0n,
              )
            : "cost" in e
              ? parseUsd(e.cost)
              : null;
        if (priced !== null && priced > MAX_ESTIMATE_MICROS) expect(res.statusCode).toBe(400);
        if (mode === "full") expect(res.statusCode).not.toBe(201);
        if (mode === "unlimited" && priced !== null && priced <= MAX_ESTIMATE_MICROS)
          expect(res.statusCode, res.body).toBe(201);
        if (res.statusCode === 201) {
          expect(parseUsd(res.json().reservation.estimate)).toBe(priced);
          await finish(res.json().eval_run_uuid);
        } else expect(await runCount()).toBe(before);
        expect(await maxReserved()).toBeLessThanOrEqual(MAX_ESTIMATE_MICROS);
      }),
      { numRuns: backend.name === "pglite" ? 60 : 40, seed: 20_261_207 },
    );
    expect([...outcomes].sort()).toEqual([201, 400, 402]);
  }, 240_000);
});
