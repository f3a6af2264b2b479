// The usage rollups: usage_daily (every dimension), usage_daily_mid (without modality),
// usage_daily_coarse (without modality, jailbreak and ground truth) and the organization's usage
// version, written together in the transaction that stores the events they count. Every writer of usage goes through addToRollups
// (or, for bulk loads, rebuildRollups), so the rollups never disagree and the usage caches
// (usage-cache.ts) never serve figures older than a committed write.
import { sql } from "drizzle-orm";
import type { usageDaily } from "../../db/schema";
import type { Tx } from "../../platform/database";
import { rebuildRunRollupSql } from "./run-rollup";

export type DailyRow = typeof usageDaily.$inferInsert;

/**
 * Adds daily rows (one per day and dimensions, as ingestion folds them) to the rollups and raises
 * the organization's usage version, in one statement: the rows travel as a single JSON parameter
 * (building the upsert through drizzle's .values() list, 12 bind parameters per row, cost the server
 * more CPU than the database spent on it), and the mid and coarse rows are summed from them by the database.
 * The conflict targets are the NULLS NOT DISTINCT dimension keys, so rows without a workspace add up
 * too; the inserts take their rows in a fixed order, so concurrent writers lock them in the same
 * order, and the version row comes last (it stays locked until commit: concurrent writers of one
 * organization queue there, in commit order, which is what makes a version never name older data).
 */
export async function addToRollups(tx: Tx, organizationUuid: string, rows: DailyRow[]): Promise<void> {
  if (!rows.length) return;
  const json = JSON.stringify(
    rows.map((r) => ({
      day: r.day,
      workspace_uuid: r.workspaceUuid ?? null,
      operation: r.operation,
      eval_type: r.evalType,
      modality: r.modality,
      is_jailbreak: r.isJailbreak,
      has_ground_truth: r.hasGroundTruth,
      rule_metric: r.ruleMetric,
      event_count: r.eventCount,
      quantity_sum: r.quantitySum,
      // A string: JSON numbers would lose precision beyond 2^53.
      cost_micros_sum: String(r.costMicrosSum),
    })),
  );
  await tx.execute(sql`
    with x as (
      select * from jsonb_to_recordset(${json}::jsonb) as x(day date, workspace_uuid uuid,
        operation text, eval_type text, modality text, is_jailbreak boolean, has_ground_truth boolean,
        rule_metric text, event_count bigint, quantity_sum bigint, cost_micros_sum bigint)
    ),
    daily as (
      insert into usage_daily (organization_uuid, day, workspace_uuid, operation, eval_type, modality,
        is_jailbreak, has_ground_truth, rule_metric, event_count, quantity_sum, cost_micros_sum)
      select ${organizationUuid}, x.* from x
      on conflict on constraint usage_daily_dims_key do update
         set event_count = usage_daily.event_count + excluded.event_count,
             quantity_sum = usage_daily.quantity_sum + excluded.quantity_sum,
             cost_micros_sum = usage_daily.cost_micros_sum + excluded.cost_micros_sum
    ),
    mid as (
      insert into usage_daily_mid (organization_uuid, day, workspace_uuid, operation, eval_type,
        is_jailbreak, has_ground_truth, rule_metric, modalities, event_count, quantity_sum, cost_micros_sum)
      select ${organizationUuid}, day, workspace_uuid, operation, eval_type, is_jailbreak, has_ground_truth,
             rule_metric, array_agg(distinct modality order by modality), sum(event_count), sum(quantity_sum),
             sum(cost_micros_sum)
        from x
       group by day, workspace_uuid, operation, eval_type, is_jailbreak, has_ground_truth, rule_metric
       order by day, workspace_uuid, operation, eval_type, is_jailbreak, has_ground_truth, rule_metric
      on conflict on constraint usage_daily_mid_dims_key do update
         set event_count = usage_daily_mid.event_count + excluded.event_count,
             quantity_sum = usage_daily_mid.quantity_sum + excluded.quantity_sum,
             cost_micros_sum = usage_daily_mid.cost_micros_sum + excluded.cost_micros_sum,
             modalities = ${mergeModalities("usage_daily_mid")}
    ),
    coarse as (
      insert into usage_daily_coarse (organization_uuid, day, workspace_uuid, operation, eval_type,
        rule_metric, modalities, event_count, quantity_sum, cost_micros_sum)
      select ${organizationUuid}, day, workspace_uuid, operation, eval_type, rule_metric,
             array_agg(distinct modality order by modality), sum(event_count), sum(quantity_sum),
             sum(cost_micros_sum)
        from x
       group by day, workspace_uuid, operation, eval_type, rule_metric
       order by day, workspace_uuid, operation, eval_type, rule_metric
      on conflict on constraint usage_daily_coarse_dims_key do update
         set event_count = usage_daily_coarse.event_count + excluded.event_count,
             quantity_sum = usage_daily_coarse.quantity_sum + excluded.quantity_sum,
             cost_micros_sum = usage_daily_coarse.cost_micros_sum + excluded.cost_micros_sum,
             modalities = ${mergeModalities("usage_daily_coarse")}
    )
    ${bumpVersion(organizationUuid)}`);
}

/** The sorted union of a row's modalities and the added ones (unchanged when already there). */
const mergeModalities = (table: "usage_daily_mid" | "usage_daily_coarse") =>
  sql.raw(`case when excluded.modalities <@ ${table}.modalities then ${table}.modalities
                else array(select distinct m from unnest(${table}.modalities || excluded.modalities) as u(m)
                            order by m) end`);

/** Raises the organization's usage version (created at 1); the row stays locked until commit. */
const bumpVersion = (organizationUuid: string) => sql`
  insert into usage_versions (organization_uuid, version) values (${organizationUuid}, 1)
  on conflict (organization_uuid) do update set version = usage_versions.version + 1`;

/**
 * Rebuilds the rollups of one organization from its events between two days (inclusive start,
 * exclusive end; whole days), for bulk loads that COPY events instead of ingesting them: sums the
 * events the way ingestion does, adds them to usage_daily, usage_daily_mid, usage_daily_coarse and
 * usage_run_daily (whose days must not hold those events yet) and raises the usage version. Statements for the caller's connection,
 * to run in one transaction.
 */
export function rebuildRollupsSql(organizationUuid: string, from: string, to: string): string[] {
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const org = lit(organizationUuid);
  return [
    `insert into usage_daily (organization_uuid, day, workspace_uuid, operation, eval_type, modality,
                              is_jailbreak, has_ground_truth, rule_metric, event_count, quantity_sum, cost_micros_sum)
     select organization_uuid, (occurred_at at time zone 'UTC')::date, workspace_uuid, operation, eval_type,
            modality, is_jailbreak, has_ground_truth, rule_metric, count(*), sum(quantity), sum(cost_micros)
       from usage_events
      where organization_uuid = ${org}
        and occurred_at >= ${lit(`${from}T00:00:00Z`)} and occurred_at < ${lit(`${to}T00:00:00Z`)}
      group by 1, 2, 3, 4, 5, 6, 7, 8, 9`,
    `insert into usage_daily_mid (organization_uuid, day, workspace_uuid, operation, eval_type, is_jailbreak,
                                  has_ground_truth, rule_metric, modalities, event_count, quantity_sum, cost_micros_sum)
     select organization_uuid, day, workspace_uuid, operation, eval_type, is_jailbreak, has_ground_truth, rule_metric,
            array_agg(distinct modality order by modality), sum(event_count), sum(quantity_sum), sum(cost_micros_sum)
       from usage_daily
      where organization_uuid = ${org} and day >= ${lit(from)} and day < ${lit(to)}
      group by 1, 2, 3, 4, 5, 6, 7, 8`,
    `insert into usage_daily_coarse (organization_uuid, day, workspace_uuid, operation, eval_type, rule_metric,
                                     modalities, event_count, quantity_sum, cost_micros_sum)
     select organization_uuid, day, workspace_uuid, operation, eval_type, rule_metric,
            array_agg(distinct modality order by modality), sum(event_count), sum(quantity_sum), sum(cost_micros_sum)
       from usage_daily
      where organization_uuid = ${org} and day >= ${lit(from)} and day < ${lit(to)}
      group by 1, 2, 3, 4, 5, 6`,
    rebuildRunRollupSql(org, lit(`${from}T00:00:00Z`), lit(`${to}T00:00:00Z`)),
    `insert into usage_versions (organization_uuid, version) values (${org}, 1)
     on conflict (organization_uuid) do update set version = usage_versions.version + 1`,
  ];
}
