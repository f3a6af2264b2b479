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
// A claimed delivery is leased for this long: if its process dies mid-attempt, another worker
// takes it up after the lease. Well above the request timeout, so a live attempt is never doubled.
const LEASE_SECONDS = Math.ceil(WEBHOOK_TIMEOUT_MS / 1000) * 6;
/** Finished deliveries (succeeded or failed) leave the delivery log after this many days. */
export const DELIVERY_LOG_RETENTION_DAYS = 30;
const PURGE_EVERY_MS = 3_600_000;
const MIN_WAIT_MS = 25;
/** The breaker's cool-down doubles each time it opens again, up to this (or the first, if longer). */
export const BREAKER_MAX_COOLDOWN_SECONDS = 3_600;

/**
 * How deliveries share the workers (docs/webhooks.md): attempts in flight at once in one process,
 * and, across every process, per organization and per endpoint; the circuit breaker opens after
 * `breakerFailures` failed attempts in a row (0: never) for `breakerCooldownSeconds`, twice as long
 * each time it opens again.
 */
export type WebhookLimits = {
  concurrency: number;
  maxInFlightPerOrg: number;
  maxInFlightPerEndpoint: number;
  breakerFailures: number;
  breakerCooldownSeconds: number;
};

/** The defaults of WEBHOOK_CONCURRENCY, _MAX_IN_FLIGHT_PER_ORG, _PER_ENDPOINT, _BREAKER_*. */
export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = {
  concurrency: 32,
  maxInFlightPerOrg: 8,
  maxInFlightPerEndpoint: 4,
  breakerFailures: 5,
  breakerCooldownSeconds: 60,
};

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
  limits?: Partial<WebhookLimits>;
  listen?: Database["listen"];
  log?: Pick<FastifyBaseLogger, "warn" | "error">;
  timeoutMs?: number;
};

/**
 * The attempts in flight (leased, not yet recorded) per endpoint and per organization, for the
 * caps. An attempt whose process died stops counting when its lease ends.
 */
const inFlightCtes = sql`
  in_flight as (
    select organization_uuid, endpoint_uuid, count(*)::int as n
      from webhook_deliveries
     where leased_until > now()
     group by organization_uuid, endpoint_uuid),
  org_busy as (
    select organization_uuid, sum(n)::int as n from in_flight group by organization_uuid)`;

/** An endpoint's cap: one probe at a time while its breaker is half open (opened, cooled down). */
const endpointCap = (l: WebhookLimits) =>
  sql`(case when e.breaker_trips > 0 then 1 else ${l.maxInFlightPerEndpoint}::int end)`;

/**
 * Claims up to `limit` due deliveries fairly and leases them, counting the attempt. Endpoints
 * whose breaker is open are skipped; each other endpoint offers its oldest due deliveries up to
 * its free slots, each organization takes up to its free slots of those, and the organizations
 * take turns: every organization's first delivery, then every one's second, and so on (within one,
 * its endpoints take turns too). The claims of all processes are serialized by an advisory lock
 * held for this one short transaction, so the caps hold across processes; the rows are still
 * locked with FOR UPDATE SKIP LOCKED, so a delivery being changed (a retry by hand) is left for
 * the next round rather than waited for.
 */
async function claimDue(db: Db, limit: number, l: WebhookLimits): Promise<Claimed[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('webhook_deliveries_claim'))`);
    const result = await tx.execute(sql`
      with ${inFlightCtes},
      ready as (
        select e.endpoint_uuid, e.organization_uuid, ${endpointCap(l)} - coalesce(f.n, 0) as free
          from webhook_endpoints e
          left join in_flight f on f.endpoint_uuid = e.endpoint_uuid
         where e.enabled
           and (e.paused_until is null or e.paused_until <= now())
           and e.endpoint_uuid in (select w.endpoint_uuid from webhook_deliveries w
                                    where w.status = 'pending' and w.next_attempt_at <= now())),
      offered as (
        select c.delivery_uuid, c.next_attempt_at, r.organization_uuid,
               row_number() over (partition by r.organization_uuid
                                  order by c.endpoint_rank, c.next_attempt_at, c.delivery_uuid) as org_rank
          from ready r
          cross join lateral (
            select w.delivery_uuid, w.next_attempt_at,
                   row_number() over (order by w.next_attempt_at, w.delivery_uuid) as endpoint_rank
              from webhook_deliveries w
             where w.endpoint_uuid = r.endpoint_uuid and w.status = 'pending'
               and w.next_attempt_at <= now()
               and (w.leased_until is null or w.leased_until <= now())
             order by w.next_attempt_at, w.delivery_uuid
             limit greatest(r.free, 0)) c),
      picked as (
        select o.delivery_uuid
          from offered o
          left join org_busy b on b.organization_uuid = o.organization_uuid
         where o.org_rank <= ${l.maxInFlightPerOrg}::int - coalesce(b.n, 0)
         order by o.org_rank, o.next_attempt_at, o.delivery_uuid
         limit ${limit}),
      locked as (
        select w.delivery_uuid
          from webhook_deliveries w
         where w.delivery_uuid in (select delivery_uuid from picked)
           and w.status = 'pending' and w.next_attempt_at <= now()
           and (w.leased_until is null or w.leased_until <= now())
           for update skip locked)
      update webhook_deliveries d
         set attempts = d.attempts + 1,
             last_attempt_at = now(),
             next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}),
             leased_until = now() + make_interval(secs => ${LEASE_SECONDS})
        from locked, webhook_endpoints e
       where d.delivery_uuid = locked.delivery_uuid and e.endpoint_uuid = d.endpoint_uuid
      returning d.delivery_uuid, d.endpoint_uuid, d.event_id, d.payload::text as body, d.attempts,
                e.url, e.secret_sealed`);
    return rowsOf<Claimed>(result);
  });
}

/**
 * Records an attempt's outcome, unless the delivery was claimed again meanwhile (lease expired),
 * and with it the endpoint's breaker: a success closes it; a failure counts, and the one that
 * reaches `breakerFailures` in a row (or fails the probe after a cool-down) opens it for a
 * cool-down twice the last one's. Failures of attempts that were under way when it opened count
 * but do not lengthen the pause.
 */
async function record(db: Db, d: Claimed, r: AttemptResult, baseSeconds: number, l: WebhookLimits) {
  const gaveUp = !r.ok && d.attempts >= MAX_DELIVERY_ATTEMPTS;
  const status = r.ok ? "succeeded" : gaveUp ? "failed" : "pending";
  const retryMs = r.ok || gaveUp ? null : retryDelayMs(d.attempts, baseSeconds);
  const opens = sql`${l.breakerFailures}::int > 0 and e.consecutive_failures + 1 >= ${l.breakerFailures}::int
                    and (e.paused_until is null or e.paused_until <= now())`;
  await db.execute(sql`
    with recorded as (
      update webhook_deliveries
         set status = ${status},
             last_status_code = ${r.statusCode},
             last_error = ${r.error},
             leased_until = null,
             delivered_at = case when ${r.ok} then now() else delivered_at end,
             next_attempt_at = case when ${retryMs}::float8 is null then null
                                    else now() + make_interval(secs => ${retryMs}::float8 / 1000) end
       where delivery_uuid = ${d.delivery_uuid} and attempts = ${d.attempts} and status = 'pending'
      returning endpoint_uuid)
    update webhook_endpoints e
       set consecutive_failures = case when ${r.ok} then 0 else e.consecutive_failures + 1 end,
           breaker_trips = case when ${r.ok} then 0 when ${opens} then e.breaker_trips + 1
                                else e.breaker_trips end,
           paused_until = case
             when ${r.ok} then null
             when ${opens} then now() + make_interval(secs => greatest(${l.breakerCooldownSeconds}::float8,
                  least(${BREAKER_MAX_COOLDOWN_SECONDS}::float8,
                        ${l.breakerCooldownSeconds}::float8 * power(2, least(e.breaker_trips, 30)))))
             else e.paused_until end
     where e.endpoint_uuid in (select endpoint_uuid from recorded)
       and not (${r.ok} and e.consecutive_failures = 0 and e.breaker_trips = 0 and e.paused_until is null)`);
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
 * The delay until the next delivery a worker may claim is due, if any is (capped by the caller):
 * a delivery of an endpoint whose breaker is open is due when its cool-down ends. Deliveries of
 * disabled endpoints, and of endpoints or organizations at their cap of attempts in flight, are
 * left out: they are not claimable, and would otherwise wake the worker again at once, round after
 * round (a slot freed in this process wakes it; one freed in another, that process's worker).
 */
export async function nextDueInMs(db: Db, limits: Partial<WebhookLimits> = {}): Promise<number | null> {
  const l = { ...DEFAULT_WEBHOOK_LIMITS, ...limits };
  const result = await db.execute(sql`
    with ${inFlightCtes}
    select extract(epoch from (min(greatest(w.next_attempt_at, coalesce(e.paused_until, w.next_attempt_at)))
                               - now())) * 1000 as ms
      from webhook_deliveries w
      join webhook_endpoints e on e.endpoint_uuid = w.endpoint_uuid and e.enabled
      left join in_flight f on f.endpoint_uuid = w.endpoint_uuid
      left join org_busy b on b.organization_uuid = e.organization_uuid
     where w.status = 'pending'
       and (w.leased_until is null or w.leased_until <= now())
       and coalesce(f.n, 0) < ${endpointCap(l)}
       and coalesce(b.n, 0) < ${l.maxInFlightPerOrg}::int`);
  const ms = rowsOf<{ ms: string | number | null }>(result)[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
}

/**
 * The delivery worker of one API process: woken when deliveries are queued (in this process at
 * once, from others through NOTIFY), at the moment the next retry is due, when one of its attempts
 * ends, and every few seconds. It keeps up to `concurrency` attempts in flight: whenever slots are
 * free it claims that many due deliveries fairly (claimDue), and each slot frees as soon as its
 * attempt is recorded, so a slow receiver holds only its own slots. Each attempt POSTs the signed
 * body and records the result: 2xx succeeded; otherwise a retry after a growing, jittered delay,
 * failed after MAX_DELIVERY_ATTEMPTS.
 */
export function createWebhookWorker(o: WebhookWorkerOptions) {
  const limits: WebhookLimits = { ...DEFAULT_WEBHOOK_LIMITS, ...o.limits };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  let lastPurge = 0;
  const stops: (() => unknown)[] = [];
  const inFlight = new Set<Promise<void>>();
  // One claim at a time in this process, so the free slots it counts stay free while it claims.
  let claiming: Promise<unknown> = Promise.resolve();

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

  /** Sends one claimed delivery in its own slot; the slot frees (and the worker wakes) when it ends. */
  function launch(d: Claimed) {
    const done: Promise<void> = (async () => {
      try {
        await record(o.db, d, await attempt(d), o.retryBaseSeconds, limits);
      } catch (err) {
        // Not recorded: the lease runs out and the delivery is attempted again.
        o.log?.warn({ err }, "webhook delivery attempt could not be recorded");
      }
    })().finally(() => {
      inFlight.delete(done);
      wake();
    });
    inFlight.add(done);
  }

  /** Fills the free slots with due deliveries; answers how many were claimed. */
  function fill(): Promise<number> {
    const run = claiming.then(async () => {
      let total = 0;
      for (;;) {
        const free = limits.concurrency - inFlight.size;
        if (free <= 0) return total;
        const claimed = await claimDue(o.db, free, limits);
        for (const d of claimed) launch(d);
        total += claimed.length;
        if (claimed.length < free) return total;
      }
    });
    claiming = run.catch(() => {});
    return run;
  }

  /**
   * Delivers every due delivery it can and waits for the attempts in flight (its own and those
   * under way in this worker already); answers how many it claimed. For tests and tools.
   */
  async function runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      total += await fill();
      if (inFlight.size === 0) return total;
      await Promise.race(inFlight);
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
      let claimed = 0;
      do {
        again = false;
        try {
          claimed += await fill();
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
      // Busy (this round claimed, attempts are in flight): the round after each attempt ends claims
      // again, and the last one, claiming nothing, times the next wake-up.
      if (claimed > 0 && inFlight.size > 0) return;
      // Every slot taken: the next attempt to end wakes the worker.
      const next =
        inFlight.size >= limits.concurrency ? null : await nextDueInMs(o.db, limits).catch(() => null);
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
    /** Stops waking and waits for the attempts under way (they end within the timeout). */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(stops.splice(0).map((s) => s()));
      await running;
      await Promise.all([...inFlight]);
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
