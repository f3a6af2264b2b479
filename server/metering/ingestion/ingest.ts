// Ingestion of a batch of usage events, step by step: read and judge them (ingest-judge.ts), make
// sure their months have partitions, store them in one transaction and follow up (ingest-store.ts).
import type { Db, Tx } from "../../platform/database";
import { cachedBudgets } from "../budgets/cache";
import { ensureMonths, forgetMonths, isMissingPartition, monthOf } from "../shared/partitions";
import { ingestConfigCache } from "./ingest-config";
import { type IngestOptions, judgeEvents, type Rejection, readEvents } from "./ingest-judge";
import { afterStore, dropArchivedMonths, pendingRows, type Stored, storeBatch } from "./ingest-store";

// The fold of events into daily rows (daily-rollup.ts), which pricing also imports from here.
export { rollUp } from "./daily-rollup";

/**
 * accepted counts every event stored by the call, awaiting_pricing those of them that no price rule
 * matched: kept (their event_id taken) and priced as soon as an operator sets a rule that covers
 * them (awaiting-pricing.ts), never billed as $0.
 */
export type IngestResult = {
  accepted: number;
  awaiting_pricing: number;
  /** Of the accepted and priced events, those whose day lies in a closed cycle: billed late, in the open one. */
  late: number;
  duplicates: number;
  rejected: Rejection[];
};

/**
 * Validates, prices and stores a batch of usage events for one organization. Each event is judged
 * on its own; the valid ones are stored once per (organization, event_id) — their keys inserted
 * with ON CONFLICT DO NOTHING — and only the events actually stored are added to the rollups, in
 * the same transaction, so a batch sent twice (or by several clients at once) counts every event
 * exactly once. An event whose day lies in a closed billing cycle is late usage: billed in the
 * open cycle and marked with its period (late-usage.ts), unless `backfill` is set (an operator's
 * decision to bill it in the closed cycle). The organization's price rules, cycles and workspaces come from the
 * per-process cache of ingest-config.ts, checked against their version first.
 */
export async function ingestUsage(
  db: Db,
  organizationUuid: string,
  raw: readonly unknown[],
  opts: IngestOptions = {},
): Promise<IngestResult> {
  const now = opts.now ?? new Date();
  const { rejected, valid } = readEvents(raw, now);
  if (!valid.length) return { accepted: 0, awaiting_pricing: 0, late: 0, duplicates: 0, rejected };

  const configs = ingestConfigCache(db);
  const config = await configs.get(organizationUuid);
  const wsIds = new Set<string>();
  for (const v of valid) if (v.event.workspaceUuid) wsIds.add(v.event.workspaceUuid);
  const known = wsIds.size ? await configs.liveWorkspaces(config, organizationUuid, [...wsIds]) : wsIds;
  const batch = judgeEvents(organizationUuid, valid, { config, known, now, opts }, rejected);

  // Every month of the batch has its partition before the insert (created here if new). A month
  // an operator archived takes no events: they would be split from the rest of their month.
  const monthsOfRows = () => [...new Set([...batch.rows.values()].map((r) => monthOf(r.occurredAt)))];
  if (batch.rows.size)
    await dropArchivedMonths(db, organizationUuid, batch, await ensureMonths(db, monthsOfRows()));

  // No query for an organization without budgets: cached with the configuration.
  const budgets = await cachedBudgets(db, config, organizationUuid);
  const context = { organizationUuid, cycles: config.cycles, budgets: budgets.length > 0, now, opts };
  let pending = pendingRows(batch);
  let stored: Stored = { accepted: 0, held: 0, late: 0, ids: new Set(), alertsChanged: false };
  if (pending.length) {
    try {
      stored = await db.transaction((tx: Tx) => storeBatch(tx, batch, pending, context));
    } catch (err) {
      // A month this process had seen was archived since: look the months up again, once.
      if (!isMissingPartition(err)) throw err;
      forgetMonths(db);
      await dropArchivedMonths(db, organizationUuid, batch, await ensureMonths(db, monthsOfRows()));
      pending = pendingRows(batch);
      if (pending.length) stored = await db.transaction((tx: Tx) => storeBatch(tx, batch, pending, context));
    }
  }
  await afterStore(db, organizationUuid, { config, pending, stored, now, opts });
  rejected.sort((a, b) => a.index - b.index);
  const duplicates = batch.duplicates + pending.length - stored.accepted;
  return {
    accepted: stored.accepted,
    awaiting_pricing: stored.held,
    late: stored.late,
    duplicates,
    rejected,
  };
}
