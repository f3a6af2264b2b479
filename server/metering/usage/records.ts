// The records table: paged, sorted, filtered usage events.
import { asc, desc, eq, type SQLWrapper } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import type { RecordSortField } from "../../../contract/usage-query";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { priceRules, usageEvents, workspaces } from "../../db/schema";
import type { Db } from "../../platform/database";
import { type Cycle, eventsInCycle } from "../billing/cycles";
import type { UsageFilters } from "./filters";
import { evalTypeGroupOf, eventWhere, workspaceJoin, workspaceMatches, workspaceName } from "./sql";

export const SORT_KEYS = {
  date: usageEvents.occurredAt,
  cost: usageEvents.costMicros,
  unit_price: usageEvents.unitPriceMicros,
  quantity: usageEvents.quantity,
  name: usageEvents.name,
  operation: usageEvents.operation,
  // By group, as the console shows it: hallucination sorts with accuracy.
  eval_type: evalTypeGroupOf(usageEvents.evalType),
  created_by: usageEvents.createdBy,
  workspace_name: workspaceName,
} as const satisfies Record<RecordSortField, SQLWrapper>;
export type SortKey = RecordSortField;

export const recordColumns = {
  usageEventUuid: usageEvents.usageEventUuid,
  occurredAt: usageEvents.occurredAt,
  name: usageEvents.name,
  operation: usageEvents.operation,
  evalType: usageEvents.evalType,
  createdBy: usageEvents.createdBy,
  quantity: usageEvents.quantity,
  unitPriceMicros: usageEvents.unitPriceMicros,
  costMicros: usageEvents.costMicros,
  evalUuid: usageEvents.evalUuid,
  evalRunUuid: usageEvents.evalRunUuid,
  workspaceUuid: usageEvents.workspaceUuid,
  workspaceName,
  notes: usageEvents.notes,
  adjustment: usageEvents.adjustment,
  priceRuleUuid: usageEvents.priceRuleUuid,
  priceRuleVersion: priceRules.version,
  ruleMetric: usageEvents.ruleMetric,
  modality: usageEvents.modality,
  isJailbreak: usageEvents.isJailbreak,
  hasGroundTruth: usageEvents.hasGroundTruth,
  lateOccurredAt: usageEvents.lateOccurredAt,
  latePeriodStart: usageEvents.latePeriodStart,
  latePeriodEnd: usageEvents.latePeriodEnd,
};

export type RecordRow = {
  usageEventUuid: string;
  occurredAt: Date;
  name: string | null;
  operation: string;
  evalType: string;
  createdBy: string | null;
  quantity: number;
  unitPriceMicros: bigint;
  costMicros: bigint;
  evalUuid: string | null;
  evalRunUuid: string | null;
  workspaceUuid: string | null;
  workspaceName: string;
  notes: string | null;
  adjustment: boolean;
  priceRuleUuid: string | null;
  priceRuleVersion: number | null;
  ruleMetric: string;
  modality: string;
  isJailbreak: boolean;
  hasGroundTruth: boolean;
  lateOccurredAt: Date | null;
  latePeriodStart: string | null;
  latePeriodEnd: string | null;
};

/** A usage event as the API returns it; money as exact decimal strings. */
export function recordJson(r: RecordRow): UsageRecord {
  return {
    usage_event_uuid: r.usageEventUuid,
    date: r.occurredAt.toISOString(),
    name: r.name,
    operation: r.operation,
    eval_type: r.evalType,
    created_by: r.createdBy,
    quantity: r.quantity,
    unit_price: formatUsdExact(r.unitPriceMicros),
    cost: formatUsdExact(r.costMicros),
    eval_uuid: r.evalUuid,
    eval_run_uuid: r.evalRunUuid,
    workspace_uuid: r.workspaceUuid,
    workspace_name: r.workspaceName,
    notes: r.notes,
    adjustment: r.adjustment,
    price_rule_uuid: r.priceRuleUuid,
    price_rule_version: r.priceRuleUuid === null ? null : (r.priceRuleVersion ?? null),
    rule_metric: r.ruleMetric,
    modality: r.modality || null,
    is_jailbreak: r.isJailbreak,
    has_ground_truth: r.hasGroundTruth,
    late_from:
      r.latePeriodStart === null || r.latePeriodEnd === null
        ? null
        : {
            period_start: r.latePeriodStart,
            period_end: r.latePeriodEnd,
            occurred_at: r.lateOccurredAt ? new Date(r.lateOccurredAt).toISOString() : null,
          },
  };
}
/**
 * The rule that priced each event (its version): at most one row, as price_rule_uuid is the key.
 * Rules are global or the event's own organization's, so the join reads no other tenant's rule.
 */
export const priceRuleJoin = eq(priceRules.priceRuleUuid, usageEvents.priceRuleUuid);

export const orderFor = (sort: SortKey, descending: boolean) => {
  const dir = descending ? desc : asc;
  // Ties broken by date then uuid (same direction) so pages never overlap or skip rows.
  return [
    dir(SORT_KEYS[sort]),
    ...(sort === "date" ? [] : [dir(usageEvents.occurredAt)]),
    dir(usageEvents.usageEventUuid),
  ];
};

/**
 * One page of the cycle's filtered, sorted records (their total comes with the page's data: the
 * summary's event count under the same filters, see usage-cache.ts).
 */
export async function recordsOnPage(
  db: Db,
  cycle: Cycle,
  f: UsageFilters,
  opts: { sort: SortKey; descending: boolean; page: number; pageSize: number },
): Promise<UsageRecord[]> {
  const where = eventWhere(cycle, f, await workspaceMatches(db, cycle.organizationUuid, f.search));
  const rows = (await db
    .select(recordColumns)
    .from(usageEvents)
    .leftJoin(workspaces, workspaceJoin)
    .leftJoin(priceRules, priceRuleJoin)
    .where(where)
    .orderBy(...orderFor(opts.sort, opts.descending))
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)) as RecordRow[];
  return rows.map(recordJson);
}

/** The `limit` newest events of the cycle (no filters), and whether there were more. */
export async function newestEvents(db: Db, cycle: Cycle, limit: number) {
  const rows = (await db
    .select(recordColumns)
    .from(usageEvents)
    .leftJoin(workspaces, workspaceJoin)
    .leftJoin(priceRules, priceRuleJoin)
    .where(eventsInCycle(cycle))
    .orderBy(desc(usageEvents.occurredAt), desc(usageEvents.usageEventUuid))
    .limit(limit + 1)) as RecordRow[];
  return { events: rows.slice(0, limit).map(recordJson), truncated: rows.length > limit };
}
