import { sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../../contract/budgets";
import type { Database, Db } from "../platform/database";
import type { Keyring } from "../platform/secrets";
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from "./backoff";
import { rowsOf } from "./enqueue";
import { openSigningSecret, resealSigningSecrets } from "./secrets";
import { type AttemptResult, postWebhook, WEBHOOK_TIMEOUT_MS } from "./send";
import { signPayload } from "./signature";
import { onWake, WEBHOOK_WAKE_CHANNEL } from "./wake";

export const WEBHOOK_USER_AGENT = "EvalConsole-Webhooks/1.0";
/** The poll for deliveries queued by other processes or come due (retries are timed exactly). */
const POLL_MS = 5_000;
/** Deliveries claimed per round, sent concurrently. */
const BATCH = 10;
// A claimed delivery is leased for this long: if its process dies mid-attempt, another worker
// takes it up after the lease. Well above the request timeout, so a live attempt is never doubled.
const LEASE_SECONDS = Math.ceil(WEBHOOK_TIMEOUT_MS / 1000) * 6;
/** Finished deliveries (succeeded or failed) leave the delivery log after this many days. */
export const DELIVERY_LOG_RETENTION_DAYS = 30;
const PURGE_EVERY_MS = 3_600_000;
const MIN_WAIT_MS = 25;

type Claimed = {
  delivery_uuid: string;
  endpoint_uuid: string;
  event_id: string;
  body: string;
  attempts: number;
  url: string;
  secret_sealed: string;
};

export type WebhookWorkerOptions = {
  db: Db;
  keyring: Keyring;
  allowPrivateUrls: boolean;
  retryBaseSeconds: number;
  listen?: Database["listen"];
  log?: Pick<FastifyBaseLogger, "warn" | "error">;
  timeoutMs?: number;
};

/**
 * Claims due deliveries and leases them in one statement (FOR UPDATE SKIP LOCKED: concurrent
 * workers, in this or other processes, each take different rows), counting the attempt.
 */
async function claimDue(db: Db, limit: number): Promise<Claimed[]> {
  const result = await db.execute(sql`
    update webhook_deliveries d
       set attempts = d.attempts + 1,
           last_attempt_at = now(),
           next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
      from (select w.delivery_uuid
              from webhook_deliveries w
              join webhook_endpoints e on e.endpoint_uuid = w.endpoint_uuid and e.enabled
             where w.status = 'pending' and w.next_attempt_at <= now()
             order by w.next_attempt_at
             limit ${limit}
             for update of w skip locked) due,
           webhook_endpoints e
     where d.delivery_uuid = due.delivery_uuid and e.endpoint_uuid = d.endpoint_uuid
    returning d.delivery_uuid, d.endpoint_uuid, d.event_id, d.payload::text as body, d.attempts,
              e.url, e.secret_sealed`);
  return rowsOf<Claimed>(result);
}

/** Records an attempt's outcome, unless the delivery was claimed again meanwhile (lease expired). */
async function record(db: Db, d: Claimed, r: AttemptResult, baseSeconds: number) {
  const gaveUp = !r.ok && d.attempts >= MAX_DELIVERY_ATTEMPTS;
  const status = r.ok ? "succeeded" : gaveUp ? "failed" : "pending";
  const retryMs = r.ok || gaveUp ? null : retryDelayMs(d.attempts, baseSeconds);
  await db.execute(sql`
    update webhook_deliveries
       set status = ${status},
           last_status_code = ${r.statusCode},
           last_error = ${r.error},
           delivered_at = case when ${r.ok} then now() else delivered_at end,
           next_attempt_at = case when ${retryMs}::float8 is null then null
                                  else now() + make_interval(secs => ${retryMs}::float8 / 1000) end
     where delivery_uuid = ${d.delivery_uuid} and attempts = ${d.attempts} and status = 'pending'`);
}

/** Deletes finished deliveries older than the log's retention; answers how many went. */
export async function purgeOldDeliveries(db: Db): Promise<number> {
  const result = await db.execute(sql`
    delete from webhook_deliveries
     where status <> 'pending' and created_at < now() - make_interval(days => ${DELIVERY_LOG_RETENTION_DAYS})
    returning 1`);
  return rowsOf(result).length;
}

/**
 * The delay until the next delivery a worker may claim is due, if any is (capped by the caller).
 * Deliveries of disabled endpoints are left out: they are not claimable, and an overdue one would
 * otherwise wake the worker again at once, round after round.
 */
export async function nextDueInMs(db: Db): Promise<number | null> {
  const result = await db.execute(sql`
    select extract(epoch from (min(w.next_attempt_at) - now())) * 1000 as ms
      from webhook_deliveries w
      join webhook_endpoints e on e.endpoint_uuid = w.endpoint_uuid and e.enabled
     where w.status = 'pending'`);
  const ms = rowsOf<{ ms: string | number | null }>(result)[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
}

/**
 * The delivery worker of one API process: woken when deliveries are queued (in this process at
 * once, from others through NOTIFY), at the moment the next retry is due, and every few seconds.
 * Each round claims up to BATCH due deliveries, POSTs each signed body, and records the result:
 * 2xx succeeded; otherwise a retry after a growing, jittered delay, failed after
 * MAX_DELIVERY_ATTEMPTS.
 */
export function createWebhookWorker(o: WebhookWorkerOptions) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  let lastPurge = 0;
  const stops: (() => unknown)[] = [];

  async function attempt(d: Claimed): Promise<AttemptResult> {
    let secret: string;
    try {
      secret = openSigningSecret(o.keyring, d.endpoint_uuid, d.secret_sealed);
    } catch (err) {
      // A secret sealed under a key this process lacks: a failed attempt (retried, then given up),
      // never a round that throws and leaves the delivery leased forever.
      return { ok: false, statusCode: null, error: (err as Error).message.slice(0, 1024) };
    }
    const t = Math.floor(Date.now() / 1000);
    return postWebhook({
      url: d.url,
      body: d.body,
      allowPrivate: o.allowPrivateUrls,
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      headers: {
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
        [WEBHOOK_EVENT_ID_HEADER]: d.event_id,
        [WEBHOOK_SIGNATURE_HEADER]: signPayload(secret, d.body, t),
      },
    }).catch((err: Error) => ({ ok: false, statusCode: null, error: err.message.slice(0, 1024) }));
  }

  /** Delivers every due delivery (round after round while full batches come); answers how many. */
  async function runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await claimDue(o.db, BATCH);
      await Promise.all(claimed.map(async (d) => record(o.db, d, await attempt(d), o.retryBaseSeconds)));
      total += claimed.length;
      if (claimed.length < BATCH) return total;
    }
  }

  function schedule(ms: number) {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(wake, ms);
    timer.unref();
  }

  /** Runs a round now, or right after the one under way. */
  function wake() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await runOnce();
        } catch (err) {
          o.log?.warn({ err }, "webhook delivery round failed");
        }
      } while (again && !stopped);
      if (Date.now() - lastPurge > PURGE_EVERY_MS) {
        lastPurge = Date.now();
        await purgeOldDeliveries(o.db).catch((err) =>
          o.log?.warn({ err }, "webhook delivery log purge failed"),
        );
      }
      const next = await nextDueInMs(o.db).catch(() => null);
      // At least MIN_WAIT_MS: a delivery due now that this round could not claim (another
      // process holds it) must not spin the worker.
      schedule(next === null ? POLL_MS : Math.min(POLL_MS, Math.max(MIN_WAIT_MS, next + 5)));
    })().finally(() => {
      running = null;
    });
  }

  return {
    runOnce,
    wake,
    start() {
      if (!stopped) return;
      stopped = false;
      void resealSigningSecrets(o.db, o.keyring).catch((err) =>
        o.log?.warn({ err }, "webhook signing secrets could not be re-sealed under the current key"),
      );
      stops.push(onWake(wake));
      const unlisten = o.listen?.(WEBHOOK_WAKE_CHANNEL, { message: wake, reset: wake });
      if (unlisten) stops.push(unlisten);
      wake();
    },
    /** Stops waking and waits for the round under way (its attempts end within the timeout). */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(stops.splice(0).map((s) => s()));
      await running;
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
