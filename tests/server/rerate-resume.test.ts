import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { loadPriceRules, storePriceRule } from "../../server/metering/pricing/prices";
import { RERATE_JOB, rerateJobHandler, SERIAL_JOB_KINDS } from "../../server/metering/pricing/rerate-job";
import { createRuleMatcher, type PriceRule } from "../../server/metering/pricing/rule-matching";
import { CLI_ACTOR } from "../../server/platform/audit";
import { createJobRunner, getJob, runUntilDone } from "../../server/platform/jobs";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle, PAST } from "./usage-setup";

// A re-rating job killed at any point (the runner stops recording, as a killed process would, and
// its work in flight rolls back) resumes on the next claim with nothing done by hand, and every total
// then equals a recomputation: each event's price, the rollups, the per-run rollup, the closed
// cycle's correction lines and the audit entries.

const silent = { info: () => {}, error: () => {} };
const LEASE_MS = 150;
const BATCH = 7;
type Rows<T> = { rows: T[] };

/** Where each run is killed: a point the job passes, and which time it passes it. */
const CRASHES: [string, number][] = [
  ["awaiting priced", 1],
  ["open page stored", 1],
  ["open page stored", 3],
  ["open cycle re-rated", 1],
  ["closed cycle corrected", 1],
  ["closed cycles corrected", 1],
];

describe.each(backends())("re-rating resumed after a crash on $name", (backend) => {
  let p: TestProduct;
  const org = "org-rerate-resume";
  const op = "resume-op";
  const db = () => p.database.db;
  const q = async <T>(text: ReturnType<typeof sql>) =>
    ((await db().execute(text)) as unknown as Rows<T>).rows;

  beforeAll(async () => {
    p = await startProduct(backend);
    await storePriceRule(db(), { organizationUuid: org, operation: op, unitPrice: "0.001", validFrom: PAST });
    // Usage in October (to be closed) and November (open), some of it in runs and workspaces.
    const events = Array.from({ length: 50 }, (_, i) => ({
      event_id: `r-${i}`,
      occurred_at: `2026-${i < 20 ? "10" : "11"}-${String(2 + (i % 27)).padStart(2, "0")}T0${i % 10}:00:00Z`,
      operation: op,
      eval_type: i % 2 ? "safety" : "bias",
      quantity: 1 + (i % 4),
      ...(i % 3 === 0 ? { eval_run_uuid: `run-${i % 5}` } : {}),
    }));
    expect(await ingestUsage(db(), org, events, { backfill: true })).toMatchObject({ accepted: 50 });
    await addCycle(p, org, "2026-10-01", "2026-11-01");
    await addCycle(p, org, "2026-11-01", null);
    // The first rule's own job (nothing to move yet).
    await runUntilDone(db(), (await lastJob()) ?? "", runnerOptions());
  });
  afterAll(async () => p?.dispose());

  const lastJob = async () =>
    (await q<{ id: string }>(sql`select id::text as id from jobs order by created_at desc limit 1`))[0]?.id;
  const runnerOptions = (fault?: (point: string) => Promise<void>) => ({
    log: silent,
    leaseMs: LEASE_MS,
    serialKinds: SERIAL_JOB_KINDS,
    handlers: { [RERATE_JOB]: rerateJobHandler(db(), { batch: BATCH, ...(fault ? { fault } : {}) }) },
  });

  type Ev = { op: string; at: string; late: string | null; quantity: number; unit: string; cost: string };
  const eventsOf = () =>
    q<Ev & { operation: string; eval_type: string; modality: string; rule_metric: string }>(sql`
      select operation, eval_type, modality, rule_metric, occurred_at::text as at,
             late_occurred_at::text as late, quantity, unit_price_micros::text as unit, cost_micros::text as cost
        from usage_events where organization_uuid = ${org} and not adjustment`);
  const priceable = (e: Awaited<ReturnType<typeof eventsOf>>[number]) => ({
    organizationUuid: org,
    operation: e.operation,
    evalType: e.eval_type,
    modality: e.modality,
    ruleMetric: e.rule_metric as "eval",
    occurredAt: new Date(e.late ?? e.at),
  });

  /** Every total against a recomputation from the events and the price lists. */
  async function expectRecomputed(rule: PriceRule, before: PriceRule[], after: PriceRule[]) {
    const events = await eventsOf();
    const open = events.filter((e) => new Date(e.at) >= new Date("2026-11-01T00:00:00Z"));
    const closed = events.filter((e) => new Date(e.at) < new Date("2026-11-01T00:00:00Z"));
    // The open cycle: each event at the price of the list as it now is.
    const now = createRuleMatcher(await loadPriceRules(db(), org));
    for (const e of open) {
      const unit = now(priceable(e))?.unitPriceMicros;
      expect([e.at, e.unit, e.cost]).toEqual([e.at, String(unit), String(BigInt(e.quantity) * (unit ?? 0n))]);
    }
    // The rollups: every day and dimension equal to the events' sum, adjustments (lines) included.
    const [daily] = await q<{ off: number }>(sql`
      with e as (select (occurred_at at time zone 'UTC')::date as day, coalesce(workspace_uuid::text, '') as ws, operation, eval_type,
                        modality, rule_metric, sum(cost_micros) as cost, count(*) as n
                   from usage_events where organization_uuid = ${org} group by 1, 2, 3, 4, 5, 6),
           d as (select day, coalesce(workspace_uuid::text, '') as ws, operation, eval_type, modality, rule_metric,
                        sum(cost_micros_sum) as cost, sum(event_count) as n
                   from usage_daily where organization_uuid = ${org} group by 1, 2, 3, 4, 5, 6)
      select count(*)::int as off from e full join d using (day, ws, operation, eval_type, modality, rule_metric)
       where e.cost is distinct from d.cost or e.n is distinct from d.n`);
    expect(daily?.off).toBe(0);
    for (const table of ["usage_daily_mid", "usage_daily_coarse"]) {
      const [r] = await q<{ rollup: string; events: string }>(sql`
        select (select coalesce(sum(cost_micros_sum), 0)::text from ${sql.identifier(table)} where organization_uuid = ${org}) as rollup,
               (select coalesce(sum(cost_micros), 0)::text from usage_events where organization_uuid = ${org}) as events`);
      expect([table, r?.rollup]).toEqual([table, r?.events]);
    }
    const [runs] = await q<{ off: number }>(sql`
      with e as (select (occurred_at at time zone 'UTC')::date as day, eval_run_uuid as run, sum(cost_micros) as cost
                   from usage_events where organization_uuid = ${org} and eval_run_uuid is not null group by 1, 2),
           r as (select day, eval_run_uuid as run, cost_micros_sum as cost from usage_run_daily where organization_uuid = ${org})
      select count(*)::int as off from e full join r using (day, run) where e.cost is distinct from r.cost`);
    expect(runs?.off).toBe(0);
    // The closed cycle: its events unchanged, the difference billed once as this rule's lines.
    const was = createRuleMatcher(before);
    const is = createRuleMatcher(after);
    let expected = 0n;
    for (const e of closed) {
      if (new Date(e.at) < rule.validFrom) continue;
      const a = was(priceable(e));
      const b = is(priceable(e));
      if (a && b) expected += (b.unitPriceMicros - a.unitPriceMicros) * BigInt(e.quantity);
    }
    const [lines] = await q<{ sum: string; n: number }>(sql`
      select coalesce(sum(cost_micros), 0)::text as sum, count(*)::int as n from usage_events
       where organization_uuid = ${org} and event_id like ${`price-correction:${rule.priceRuleUuid}:%`}`);
    expect(BigInt(lines?.sum ?? "0")).toBe(expected);
    // One audit entry per re-rating, however often it was started.
    const [audits] = await q<{ n: number }>(sql`
      select count(*)::int as n from audit_log where action = 'price_rule.rerated' and target_id = ${rule.priceRuleUuid}`);
    expect(audits?.n).toBe(1);
  }

  it.each(CRASHES)(
    "resumes a re-rating killed at '%s' (time %i) and leaves every total recomputed",
    async (point, nth) => {
      const before = await loadPriceRules(db(), org);
      const price = 1_000n + BigInt(Math.floor(Math.random() * 5_000)) * 2n;
      const { rule, jobUuid } = await storePriceRule(
        db(),
        {
          organizationUuid: org,
          operation: op,
          unitPrice: price,
          validFrom: new Date("2026-10-15T00:00:00Z"),
        },
        CLI_ACTOR,
      );
      const after = await loadPriceRules(db(), org);
      // The first process: killed at the point.
      let seen = 0;
      let killed = false;
      const first = createJobRunner(
        db(),
        runnerOptions(async (at) => {
          if (at !== point || ++seen !== nth) return;
          killed = true;
          await first.stop({ abandon: true });
          throw new Error(`killed at ${at}`);
        }),
      );
      await first.tick();
      await first.idle();
      expect(killed).toBe(true);
      expect((await getJob(db(), jobUuid))?.state).toBe("running");
      // The next start: the job is claimed again once its lease ends, and resumes.
      const done = await runUntilDone(db(), jobUuid, runnerOptions());
      expect(done).toMatchObject({ state: "done", error: null, attempts: 2 });
      expect(done.done).toBe(done.total);
      await expectRecomputed(rule, before, after);
    },
  );
});
