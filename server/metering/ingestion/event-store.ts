// Storing accepted usage events: their idempotency keys, and the priced or awaiting rows, in one
// statement (ingest.ts decides what each row is; this writes them).
import { sql } from "drizzle-orm";
import type { usageEvents } from "../../db/schema";
import type { Tx } from "../../platform/database";
import { arrayLiteral } from "../shared/sql-arrays";

export type EventRow = typeof usageEvents.$inferInsert;
/** An event row on its way to usage_events, or (awaiting) to usage_events_awaiting. */
export type StoredRow = EventRow & { awaiting?: boolean; backfill?: boolean };

/** One column of the rows as an array literal (see sql-arrays.ts). */
const column = <R extends EventRow>(rows: readonly R[], value: (r: R) => string | null) => {
  const out = new Array<string | null>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = value(rows[i] as R);
  return arrayLiteral(out);
};
const bool = (v: boolean | undefined) => (v ? "t" : "f");

/**
 * Stores event rows and their idempotency keys in one statement with a fixed text: each column
 * travels as one array parameter, unpacked by unnest (a batch of any size has the same few parameters, and
 * neither drizzle nor the driver builds or parses per-row SQL). The keys go first, into
 * usage_event_keys — usage_events, partitioned by month, cannot hold a unique key without the month
 * — and only the events whose key was new are stored: priced ones in usage_events, those awaiting
 * pricing in usage_events_awaiting (one key insert for both, in the rows' order, so concurrent
 * batches lock keys in one order). A batch racing with another that holds one of its keys waits for
 * that one to commit, then skips the event. Returns the event ids stored.
 */
export async function insertEvents(tx: Tx, organizationUuid: string, rows: StoredRow[]): Promise<string[]> {
  const result = await tx.execute(sql`
    with x as (
      select * from unnest(${column(rows, (r) => r.eventId)}::text[],
        ${column(rows, (r) => r.occurredAt.toISOString())}::timestamptz[],
        ${column(rows, (r) => r.workspaceUuid ?? null)}::uuid[],
        ${column(rows, (r) => r.evalUuid ?? null)}::text[],
        ${column(rows, (r) => r.evalRunUuid ?? null)}::text[],
        ${column(rows, (r) => r.name ?? null)}::text[],
        ${column(rows, (r) => r.operation)}::text[],
        ${column(rows, (r) => r.evalType)}::text[],
        ${column(rows, (r) => r.modality ?? "")}::text[],
        ${column(rows, (r) => bool(r.isJailbreak))}::boolean[],
        ${column(rows, (r) => bool(r.hasGroundTruth))}::boolean[],
        ${column(rows, (r) => r.createdBy ?? null)}::text[],
        ${column(rows, (r) => String(r.quantity ?? 1))}::bigint[],
        ${column(rows, (r) => r.ruleMetric ?? "eval")}::text[],
        ${column(rows, (r) => String(r.unitPriceMicros))}::bigint[],
        ${column(rows, (r) => String(r.costMicros))}::bigint[],
        ${column(rows, (r) => r.priceRuleUuid ?? null)}::uuid[],
        ${column(rows, (r) => r.notes ?? null)}::text[],
        ${column(rows, (r) => bool(r.awaiting))}::boolean[],
        ${column(rows, (r) => bool(r.backfill))}::boolean[],
        ${column(rows, (r) => r.lateOccurredAt?.toISOString() ?? null)}::timestamptz[],
        ${column(rows, (r) => r.latePeriodStart ?? null)}::date[],
        ${column(rows, (r) => r.latePeriodEnd ?? null)}::date[],
        ${column(rows, (r) => bool(r.adjustment))}::boolean[])
        as x(event_id, occurred_at, workspace_uuid, eval_uuid, eval_run_uuid, name, operation,
             eval_type, modality, is_jailbreak, has_ground_truth, created_by, quantity, rule_metric,
             unit_price_micros, cost_micros, price_rule_uuid, notes, awaiting, backfill,
             late_occurred_at, late_period_start, late_period_end, adjustment)
    ),
    k as (
      insert into usage_event_keys (organization_uuid, event_id, occurred_at)
      select ${organizationUuid}, event_id, occurred_at from x
      on conflict (organization_uuid, event_id) do nothing
      returning event_id
    ),
    priced as (
      insert into usage_events (organization_uuid, event_id, occurred_at, workspace_uuid, eval_uuid,
        eval_run_uuid, name, operation, eval_type, modality, is_jailbreak, has_ground_truth, created_by,
        quantity, rule_metric, unit_price_micros, cost_micros, price_rule_uuid, notes, late_occurred_at,
        late_period_start, late_period_end, adjustment)
      select ${organizationUuid}, x.event_id, x.occurred_at, x.workspace_uuid, x.eval_uuid,
             x.eval_run_uuid, x.name, x.operation, x.eval_type, x.modality, x.is_jailbreak,
             x.has_ground_truth, x.created_by, x.quantity, x.rule_metric, x.unit_price_micros,
             x.cost_micros, x.price_rule_uuid, x.notes, x.late_occurred_at, x.late_period_start,
             x.late_period_end, x.adjustment
        from x join k using (event_id) where not x.awaiting
      returning event_id
    ),
    held as (
      insert into usage_events_awaiting (organization_uuid, event_id, occurred_at, workspace_uuid,
        eval_uuid, eval_run_uuid, name, operation, eval_type, modality, is_jailbreak, has_ground_truth,
        created_by, quantity, rule_metric, notes, backfill)
      select ${organizationUuid}, x.event_id, x.occurred_at, x.workspace_uuid, x.eval_uuid,
             x.eval_run_uuid, x.name, x.operation, x.eval_type, x.modality, x.is_jailbreak,
             x.has_ground_truth, x.created_by, x.quantity, x.rule_metric, x.notes, x.backfill
        from x join k using (event_id) where x.awaiting
      returning event_id
    )
    select event_id from priced union all select event_id from held`);
  return (result as unknown as { rows: { event_id: string }[] }).rows.map((r) => r.event_id);
}
