import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeCycle } from "../../server/metering/billing/billing";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { archiveMonth, restoreMonth } from "../../server/metering/shared/partitions";
import { rebuildRunRollupSql } from "../../server/metering/shared/run-rollup";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle } from "./usage-setup";

/**
 * The per-run rollup (usage_run_daily, what the Eval Runs list reads) against the events it sums:
 * random streams of usage batches (runs, names and workspaces that differ within a run, duplicates,
 * events no rule prices yet, late events of cycles closed since), price rules (re-rating the open
 * cycle's events in place, pricing awaiting ones, correction lines for closed cycles), cycles
 * closed, and a month archived and restored. After every step the rollup's rows equal grouping the
 * events per day and run, column for column; at the end, rebuilding it from the events gives the
 * same rows again.
 */
describe.each(backends())("the per-run rollup equals the events on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => p?.dispose());

  type Rows<T> = { rows: T[] };
  const FIRST = Date.parse("2026-08-01T00:00:00Z");
  const DAYS = 110; // to Nov 19, before today
  const BOUNDARIES = ["2026-09-01", "2026-10-01", "2026-11-01"];
  const dayAt = (d: number, hour: number) => new Date(FIRST + d * 86_400_000 + hour * 3_600_000);
  const OPERATIONS = ["op-a", "op-b", "op-c"];
  const event = fc.record({
    id: fc.integer({ min: 0, max: 60 }),
    run: fc.constantFrom("run-1", "run-2", "Run-2", null),
    // Names that sort differently by collation ("beta" / "Beta"), and none.
    name: fc.constantFrom("alpha", "Beta", "beta", null),
    evalUuid: fc.constantFrom("ev-1", "ev-2", null),
    evalType: fc.constantFrom("safety", "accuracy"),
    workspace: fc.integer({ min: 0, max: 2 }),
    operation: fc.constantFrom(...OPERATIONS),
    quantity: fc.integer({ min: 1, max: 5 }),
    day: fc.integer({ min: 0, max: DAYS - 1 }),
    hour: fc.integer({ min: 0, max: 23 }),
  });
  const step = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("batch" as const),
        events: fc.array(event, { maxLength: 12 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("rule" as const),
        operation: fc.constantFrom(...OPERATIONS),
        micros: fc.integer({ min: 0, max: 999_999 }),
        day: fc.integer({ min: 0, max: DAYS - 1 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("archive" as const) }) },
  );

  let run = 0;
  // What the runs exercised: the property means little if none re-rated, billed late or archived.
  const seen = { rerated: 0, late: 0, archived: 0, restored: 0 };

  it("keeps usage_run_daily equal to the events grouped per day and run after every step", async () => {
    const db = p.database.db;
    const q = async <T>(text: ReturnType<typeof sql>) =>
      ((await db.execute(text)) as unknown as Rows<T>).rows;
    const columns = sql.raw(`organization_uuid, day::text, eval_run_uuid, first_at::text, last_at::text,
      event_count::text, quantity_sum::text, cost_micros_sum::text, name, eval_uuid, eval_type, workspace_uuid`);
    const rollup = (org: string) =>
      q(
        sql`select ${columns} from usage_run_daily where organization_uuid = ${org} order by day, eval_run_uuid`,
      );
    const grouped = (org: string) =>
      q(sql`
        select ${columns} from (
          select organization_uuid, (occurred_at at time zone 'UTC')::date as day, eval_run_uuid,
                 min(occurred_at) as first_at, max(occurred_at) as last_at, count(*) as event_count,
                 sum(quantity) as quantity_sum, sum(cost_micros) as cost_micros_sum, min(name) as name,
                 min(eval_uuid) as eval_uuid, min(eval_type) as eval_type, min(workspace_uuid::text) as workspace_uuid
            from usage_events where organization_uuid = ${org} and eval_run_uuid is not null
           group by 1, 2, 3) g
        order by day, eval_run_uuid`);

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
        const org = `org-run-rollup-${++run}`;
        await addCycle(p, org, "2026-08-01", null);
        const workspaces: (string | null)[] = [null];
        for (const name of ["A", "B"])
          workspaces.push((await p.api.workspaces.create(org, name)).workspaceUuid);
        // op-a and op-b priced from the start; op-c awaits pricing until a step sets a rule for it.
        for (const [i, operation] of ["op-a", "op-b"].entries())
          await setPriceRule(db, {
            organizationUuid: org,
            operation,
            unitPrice: BigInt(1_001 + i),
            validFrom: dayAt(0, 0),
          });
        let closes = 0;
        let archived = false;
        for (const s of steps) {
          if (s.kind === "rule") {
            const set = await setPriceRule(db, {
              organizationUuid: org,
              operation: s.operation,
              unitPrice: BigInt(s.micros),
              validFrom: dayAt(s.day, 0),
            });
            seen.rerated += set.rerating.events;
          } else if (s.kind === "close") {
            const end = BOUNDARIES[closes];
            if (!end) continue;
            await closeCycle(db, org, { endDate: end, openNext: true });
            closes += 1;
          } else if (s.kind === "archive") {
            // August, once its cycle is closed: archived, and restored at the next such step.
            if (closes === 0) continue;
            if (archived) {
              expect(await restoreMonth(db, "2026-08")).toEqual({ status: "restored" });
              seen.restored += 1;
            } else {
              expect(await archiveMonth(db, "2026-08")).toMatchObject({ status: "archived" });
              seen.archived += 1;
            }
            archived = !archived;
          } else {
            const r = await ingestUsage(
              db,
              org,
              s.events.map((e) => ({
                event_id: `e-${e.id}`,
                occurred_at: dayAt(e.day, e.hour).toISOString(),
                operation: e.operation,
                eval_type: e.evalType,
                quantity: e.quantity,
                ...(e.run === null ? {} : { eval_run_uuid: e.run }),
                ...(e.name === null ? {} : { name: e.name }),
                ...(e.evalUuid === null ? {} : { eval_uuid: e.evalUuid }),
                workspace_uuid: workspaces[e.workspace] ?? null,
              })),
            );
            // Only an archived month refuses events.
            expect(r.rejected.every((x) => x.reason.includes("archived"))).toBe(true);
            seen.late += r.late;
          }
          expect(await rollup(org)).toEqual(await grouped(org));
        }
        // Rebuilt from the events (what bulk loads and the migration do): the same rows.
        await db.execute(sql`delete from usage_run_daily where organization_uuid = ${org}`);
        const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
        await db.execute(
          sql.raw(rebuildRunRollupSql(lit(org), lit("2000-01-01T00:00:00Z"), lit("2100-01-01T00:00:00Z"))),
        );
        expect(await rollup(org)).toEqual(await grouped(org));
        // The next run archives August again: this one's month is restored, its events gone, so
        // its open billing cycle does not hold the archive back.
        if (archived) await restoreMonth(db, "2026-08");
        await db.execute(sql`delete from usage_events where organization_uuid = ${org}`);
        await db.execute(sql`delete from usage_run_daily where organization_uuid = ${org}`);
      }),
      { seed: 20261127, numRuns: 15, endOnFailure: true },
    );
    expect(seen.rerated).toBeGreaterThan(0);
    expect(seen.late).toBeGreaterThan(0);
    expect(seen.archived).toBeGreaterThan(0);
    expect(seen.restored).toBeGreaterThan(0);
  });
});
