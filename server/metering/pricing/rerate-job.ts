/**
 * Re-rating after a price change as a job (platform/jobs.ts, docs/pricing.md "Re-rating is a
 * job"): the price is stored with its job in one transaction, so no change is lost; the job row
 * holds the rule, the price lists just before and just after it (the closed cycles' differences
 * need both, and a second change must not move the first one's), and where it stands (the open
 * cycle's last event, the closed cycles done, the totals so far), each written in the transaction
 * of the work it describes. A job that dies at any point resumes there on the next claim. Jobs of
 * one organization run one at a time, in order; other organizations' run meanwhile.
 */
import type { Actor } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { enqueueJob, type JobHandler, type JobLog, type JobRow, wakeJobs } from "../../platform/jobs";
import { type RerateCursor, type RerateSummary, rerateAfterPriceChange, startCursor } from "./price-change";
import type { PriceRule } from "./rule-matching";

export const RERATE_JOB = "price-rerate";
/** Kinds whose jobs of one organization run one after the other. */
export const SERIAL_JOB_KINDS = [RERATE_JOB] as const;

type RuleJson = Omit<PriceRule, "unitPriceMicros" | "validFrom" | "validTo"> & {
  unitPriceMicros: string;
  validFrom: string;
  validTo: string | null;
};

export type RerateJobPayload = {
  rule: RuleJson;
  before: RuleJson[];
  after: RuleJson[];
  actor: Actor | null;
  cursor: RerateCursor;
};

const ruleJson = (r: PriceRule): RuleJson => ({
  ...r,
  unitPriceMicros: String(r.unitPriceMicros),
  validFrom: r.validFrom.toISOString(),
  validTo: r.validTo?.toISOString() ?? null,
});

const ruleOf = (r: RuleJson): PriceRule => ({
  ...r,
  unitPriceMicros: BigInt(r.unitPriceMicros),
  validFrom: new Date(r.validFrom),
  validTo: r.validTo === null ? null : new Date(r.validTo),
});

/** Queues the re-rating of a price just set, in the transaction that sets it. Answers the job id. */
export async function enqueueRerating(
  tx: Tx,
  rule: PriceRule,
  before: readonly PriceRule[],
  after: readonly PriceRule[],
  actor: Actor | null,
): Promise<string> {
  const payload: RerateJobPayload = {
    rule: ruleJson(rule),
    before: before.map(ruleJson),
    after: after.map(ruleJson),
    actor,
    cursor: startCursor(),
  };
  const id = await enqueueJob(tx as unknown as Db, {
    kind: RERATE_JOB,
    organizationUuid: rule.organizationUuid,
    payload,
  });
  if (!id) throw new Error("re-rating job not queued");
  return id;
}

/** The price rule a re-rating job is for (null for a job of another kind). */
export const rerateRuleOf = (job: JobRow): string | null =>
  job.kind === RERATE_JOB ? ((job.payload as Partial<RerateJobPayload>).rule?.priceRuleUuid ?? null) : null;

/** What a finished re-rating moved, from its job row (null until it is done). */
export function rerateResultOf(job: JobRow): RerateSummary | null {
  if (job.kind !== RERATE_JOB || job.state !== "done") return null;
  const s = (job.payload as RerateJobPayload).cursor.summary;
  return {
    organizations: s.organizations,
    events: s.events,
    beforeMicros: BigInt(s.before),
    afterMicros: BigInt(s.after),
    corrections: s.corrections.map((c) => ({ ...c, amountMicros: BigInt(c.amountMicros) })),
  };
}

/** The job's handler; `fault` lets a test kill it at each point a process may die. */
export function rerateJobHandler(
  db: Db,
  opts: { fault?: (point: string) => void | Promise<void>; batch?: number } = {},
): JobHandler {
  return async ({ job, checkpoint, progress }) => {
    const p = job.payload as RerateJobPayload;
    let total = job.total;
    await rerateAfterPriceChange(db, ruleOf(p.rule), p.before.map(ruleOf), {
      afterRules: p.after.map(ruleOf),
      ...(opts.batch ? { batch: opts.batch } : {}),
      ...(p.actor ? { actor: p.actor } : {}),
      cursor: p.cursor,
      io: {
        done: job.done,
        total,
        save: (tx, done, cursor) => checkpoint(tx, total === null ? done : Math.min(done, total), { cursor }),
        progress: (done, t) => {
          if (t !== undefined) total = t;
          return progress(total === null ? done : Math.min(done, total), t);
        },
        ...(opts.fault ? { fault: opts.fault } : {}),
      },
    });
    // Every event read: the bar ends full even where a gap between cycles held some it skipped.
    if (total !== null) await progress(total, total);
  };
}

/** The runner options every runner of re-rating jobs uses. */
export const rerateRunnerOptions = (db: Db, log: JobLog) => ({
  handlers: { [RERATE_JOB]: rerateJobHandler(db) },
  serialKinds: SERIAL_JOB_KINDS,
  log,
});

/** Starts the queued re-ratings now, in this process (platform/jobs.ts wakeJobs). */
export function wakeRerating(db: Db, log: JobLog): void {
  wakeJobs(db, RERATE_JOB, () => rerateRunnerOptions(db, log));
}
