// Rows stored before the `adjustment` column existed (migration 0028) learn it from what is known
// of them: a cost that is not quantity × unit price, no price rule, or the audit entry that an
// operator's adjustment left. The migration fills usage_events and the archived months it finds;
// this fills a month archived, dumped and dropped before the migration, when it is restored.
// (An unaudited adjustment, only ever made by the demo's seed, whose cost happens to equal
// quantity × unit price cannot be told from usage: docs/pricing.md says so.)
import { sql } from "drizzle-orm";
import type { Tx } from "../../platform/database";

type Rows<T> = { rows: T[] };

/** Adds and fills the column on `table` (an archived month) if it lacks it; true if it did. */
export async function fillAdjustmentColumn(tx: Tx, table: string): Promise<boolean> {
  const has = (await tx.execute(sql`
    select 1 from information_schema.columns
     where table_schema = current_schema() and table_name = ${table} and column_name = 'adjustment'`)) as unknown as Rows<unknown>;
  if (has.rows.length) return false;
  const t = sql.identifier(table);
  await tx.execute(sql`alter table ${t} add column adjustment boolean default false not null`);
  await tx.execute(sql`
    update ${t} e set adjustment = true
     where (e.cost_micros <> e.unit_price_micros * e.quantity) is true or e.price_rule_uuid is null
        or (e.notes is not null and exists (select 1 from audit_log a
             where a.organization_uuid = e.organization_uuid and a.action = 'usage.adjustment_recorded'
               and a.target_type = 'usage_event' and a.target_id = e.event_id))`);
  return true;
}
