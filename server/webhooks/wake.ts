import { EventEmitter } from "node:events";
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../platform/database";

/**
 * Waking the delivery workers when deliveries are queued, instead of waiting for their poll.
 * Twice, like the cache notices of platform/token-revocation.ts: `pg_notify` in the enqueuing
 * transaction reaches every API process LISTENing on the PostgreSQL database at its commit (and
 * never when it rolls back), and a signal on this process's bus wakes the workers here. On PGlite
 * (one connection) the woken worker's claim query waits for the enqueuing transaction to end; on
 * PostgreSQL it may run before the commit and find nothing, and the NOTIFY wakes it again.
 */
export const WEBHOOK_WAKE_CHANNEL = "webhook_deliveries";

const bus = new EventEmitter();
bus.setMaxListeners(0);

/** Queues the cross-process wake-up in `tx` and signals this process's workers. */
export async function wakeWorkers(tx: Tx | Db): Promise<void> {
  await tx.execute(sql`select pg_notify(${WEBHOOK_WAKE_CHANNEL}, 'due')`);
  queueMicrotask(() => bus.emit("wake"));
}

/** Subscribes a worker to this process's wake-ups; returns the unsubscribe. */
export function onWake(listener: () => void): () => void {
  bus.on("wake", listener);
  return () => bus.off("wake", listener);
}
