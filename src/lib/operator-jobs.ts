// The operator area's jobs (GET /v1/operator/jobs): heavy work run off the request, with its
// progress. What the console says of a job's kind and state, and how far it is.

export type JobState = "queued" | "running" | "done" | "failed";

export type OperatorJob = {
  job_uuid: string;
  kind: string;
  organization_uuid: string | null;
  state: JobState;
  done: number;
  total: number | null;
  created_at: string;
  run_after: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  price_rule_uuid: string | null;
};

const KIND_LABELS: Record<string, string> = {
  "price-rerate": "Re-rating after a price change",
  "usage-import": "Usage import",
  "partition-archive": "Partition archive",
  "partition-restore": "Partition restore",
  "demo-seed": "Demo data",
};

/** A kind's name for people; a kind this console does not know shows as the API names it. */
export const jobKindLabel = (kind: string) => KIND_LABELS[kind] ?? kind;

export const JOB_STATES: Record<JobState, { label: string; color: string }> = {
  queued: { label: "Queued", color: "default" },
  running: { label: "Running", color: "processing" },
  done: { label: "Done", color: "success" },
  failed: { label: "Failed", color: "error" },
};

/**
 * A job about to move: running, or queued and due (a recurring task waits queued for its next run,
 * hours away). Its page and the list read it again until it ends.
 */
export const jobMoving = (j: Pick<OperatorJob, "state" | "run_after">, now = Date.now()) =>
  j.state === "running" || (j.state === "queued" && Date.parse(j.run_after) <= now);

/** How far a job is, 0–100 (a done job is 100 even with nothing to do; an uncounted one 0). */
export function jobPercent(j: Pick<OperatorJob, "state" | "done" | "total">): number {
  if (j.state === "done") return 100;
  if (!j.total) return 0;
  return Math.min(100, Math.floor((j.done / j.total) * 100));
}

/** "1,200 of 5,000", or "1,200" while the total is not counted yet. */
export function jobCount(j: Pick<OperatorJob, "done" | "total">): string {
  const n = (v: number) => v.toLocaleString("en-US");
  return j.total === null ? n(j.done) : `${n(j.done)} of ${n(j.total)}`;
}
