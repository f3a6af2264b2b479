// Background jobs of every kind, on both databases: rows of the `jobs` table claimed by a runner in
// each serving process. Why not pg-boss or graphile-worker: see docs/architecture.md, "Jobs".
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { jobs } from "../db/schema";
import type { Db, Tx } from "./database";

export type JobLog = { info(obj: object, msg: string): void; error(obj: object, msg: string): void };

export type JobRow = typeof jobs.$inferSelect;

export type JobContext = {
  job: JobRow;
  /** Records progress (and keeps the lease); a resumed job starts from the `done` it recorded. */
  progress(done: number, total?: number): Promise<void>;
  /**
   * Records progress and merges `payload` into the job's payload inside `tx`, the transaction of the
   * work it describes: the work and the key it reached commit together. Throws (so `tx` rolls back)
   * when this runner no longer holds the job.
   */
  checkpoint(tx: Tx, done: number, payload: Record<string, unknown>): Promise<void>;
};

/** Thrown by a checkpoint of a runner that lost its claim: its work must not commit. */
export class JobLostError extends Error {
  constructor(id: string) {
    super(`job ${id} is no longer held by this runner`);
  }
}

export type JobHandler = (ctx: JobContext) => Promise<void>;

/** A task of the installation run every `everyMs`, the first time `firstAfterMs` after start. */
export type RecurringJob = { kind: string; everyMs: number; firstAfterMs: number };

export type NewJob = {
  kind: string;
  organizationUuid?: string | null;
  payload?: Record<string, unknown>;
  total?: number | null;
  runAfter?: Date;
  /** At most one queued or running job per key: a second enqueue with it adds nothing. */
  dedupeKey?: string;
};

/** Queues a job; answers its id, or null when a pending job already holds its dedupe key. */
export async function enqueueJob(db: Db, job: NewJob): Promise<string | null> {
  const [row] = await db
    .insert(jobs)
    .values({
      kind: job.kind,
      organizationUuid: job.organizationUuid ?? null,
      payload: job.payload ?? {},
      total: job.total ?? null,
      runAfter: job.runAfter ?? new Date(),
      dedupeKey: job.dedupeKey ?? null,
    })
    .onConflictDoNothing({
      target: jobs.dedupeKey,
      where: sql`${jobs.state} in ('queued', 'running')`,
    })
    .returning({ id: jobs.id });
  return row?.id ?? null;
}

/**
 * Claims one due job in one statement: `for update skip locked`, so two runners never take the
 * same row. Organizations take turns: the job of the organization served longest ago goes first
 * (one with nothing claimed yet before all), then the oldest job of it. A running job whose lease
 * ended (its runner died) is claimable again and resumes from its recorded progress.
 */
export async function claimJob(
  db: Db,
  kinds: string[],
  leaseMs: number,
  serialKinds: readonly string[] = [],
): Promise<JobRow | null> {
  if (!kinds.length) return null;
  const list = (ks: readonly string[]) =>
    sql.join(
      ks.map((k) => sql`${k}`),
      sql`, `,
    );
  const kindList = list(kinds);
  // A serial job waits for every older unfinished serial job of its organization (one without an
  // organization, the installation's, waits for all and is waited for by all): two price changes of
  // one organization run one after the other, in the order they were made; other organizations'
  // jobs run meanwhile.
  const inTurn: SQL = serialKinds.length
    ? sql`and (j.kind not in (${list(serialKinds)}) or not exists (
             select 1 from jobs o
              where o.kind in (${list(serialKinds)}) and o.state in ('queued', 'running')
                and (o.created_at, o.id) < (j.created_at, j.id)
                and (o.organization_uuid is null or j.organization_uuid is null
                     or o.organization_uuid = j.organization_uuid)))`
    : sql``;
  const result: unknown = await db.execute(sql`
    with next as (
      select j.id from jobs j
       where j.kind in (${kindList})
         and ((j.state = 'queued' and j.run_after <= now()) or (j.state = 'running' and j.locked_until < now()))
         ${inTurn}
       order by (select max(s.claimed_at) from jobs s
                  where s.organization_uuid is not distinct from j.organization_uuid) asc nulls first,
                j.created_at, j.id
       limit 1
       for update of j skip locked
    )
    update jobs set state = 'running', attempts = jobs.attempts + 1, claimed_at = clock_timestamp(),
           started_at = coalesce(jobs.started_at, now()),
           locked_until = now() + ${leaseMs} * interval '1 millisecond'
      from next where jobs.id = next.id
    returning jobs.id`);
  const id = (result as { rows: { id: string }[] }).rows[0]?.id;
  if (!id) return null;
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row ?? null;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

type RunnerOptions = {
  handlers: Record<string, JobHandler>;
  recurring?: RecurringJob[];
  log: JobLog;
  /** Jobs run at once by this process. */
  concurrency?: number;
  pollMs?: number;
  /** How long a claim holds without a sign of life (progress or the heartbeat) before another runner may resume it. */
  leaseMs?: number;
  /** Kinds whose jobs run one at a time per organization, oldest first (see claimJob). */
  serialKinds?: readonly string[];
};

/**
 * Runs the jobs of the kinds it has handlers for. In the serving process only, so the embedded
 * database keeps its one writer; on PostgreSQL every API process runs one and they share the table.
 */
export function createJobRunner(db: Db, opts: RunnerOptions) {
  const { handlers, log } = opts;
  const kinds = Object.keys(handlers);
  const leaseMs = opts.leaseMs ?? 60_000;
  const concurrency = opts.concurrency ?? 2;
  const recurring = new Map((opts.recurring ?? []).map((r) => [r.kind, r]));
  const running = new Set<Promise<void>>();
  /** Claims started by a job's end, so that idle() waits for the jobs they start too. */
  const chained = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  /** No more claims. */
  let stopped = false;
  /** Running jobs record nothing more (a crash, as far as the table can tell). */
  let abandoned = false;

  /** Writes of the claim `attempt` only: a runner that lost its lease changes nothing. */
  const mine = (job: JobRow) =>
    and(eq(jobs.id, job.id), eq(jobs.attempts, job.attempts), eq(jobs.state, "running"));

  async function finish(job: JobRow, error: unknown | null) {
    await db.transaction(async (tx) => {
      const [ended] = await tx
        .update(jobs)
        .set({
          state: error === null ? "done" : "failed",
          error: error === null ? null : errorText(error),
          finishedAt: new Date(),
          lockedUntil: null,
        })
        .where(mine(job))
        .returning({ id: jobs.id });
      const every = job.dedupeKey === job.kind ? recurring.get(job.kind) : undefined;
      if (ended && every)
        await enqueueJob(tx as unknown as Db, {
          kind: job.kind,
          dedupeKey: job.kind,
          runAfter: new Date(Date.now() + every.everyMs),
        });
    });
  }

  async function run(job: JobRow) {
    const handler = handlers[job.kind];
    const renew = () =>
      db
        .update(jobs)
        .set({ lockedUntil: sql`now() + ${leaseMs} * interval '1 millisecond'` })
        .where(mine(job));
    const heartbeat = setInterval(
      () => {
        if (!abandoned) void renew().catch(() => {});
      },
      Math.max(50, leaseMs / 3),
    );
    heartbeat.unref();
    let error: unknown | null = null;
    try {
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      await handler({
        job,
        checkpoint: async (tx, done, payload) => {
          const [held] = await tx
            .update(jobs)
            .set({
              done,
              payload: sql`${jobs.payload} || ${JSON.stringify(payload)}::jsonb`,
              lockedUntil: sql`now() + ${leaseMs} * interval '1 millisecond'`,
            })
            .where(mine(job))
            .returning({ id: jobs.id });
          if (!held || abandoned) throw new JobLostError(job.id);
        },
        progress: async (done, total) => {
          if (abandoned) return;
          await db
            .update(jobs)
            .set({
              done,
              ...(total === undefined ? {} : { total }),
              lockedUntil: sql`now() + ${leaseMs} * interval '1 millisecond'`,
            })
            .where(mine(job));
        },
      });
    } catch (err) {
      error = err;
      log.error({ err, job: job.id, kind: job.kind }, "job failed");
    } finally {
      clearInterval(heartbeat);
    }
    if (abandoned) return;
    await finish(job, error);
  }

  /** Claims and starts jobs while this process has room; answers how many it started. */
  async function tick(): Promise<number> {
    let started = 0;
    while (!stopped && running.size < concurrency) {
      const job = await claimJob(db, kinds, leaseMs, opts.serialKinds);
      if (!job) break;
      started++;
      const p: Promise<void> = run(job)
        .catch((err) => log.error({ err, job: job.id }, "could not record a job's end"))
        .finally(() => {
          running.delete(p);
          // The next job (one queued behind this one, say) starts now, not at the next poll.
          if (!stopped) {
            const next: Promise<void> = tick()
              .then(() => undefined)
              .catch((err) => log.error({ err }, "could not claim jobs"))
              .finally(() => chained.delete(next));
            chained.add(next);
          }
        });
      running.add(p);
    }
    return started;
  }

  return {
    tick,
    /** Queues the recurring tasks (once per installation), then polls. */
    async start() {
      for (const r of recurring.values())
        await enqueueJob(db, {
          kind: r.kind,
          dedupeKey: r.kind,
          runAfter: new Date(Date.now() + r.firstAfterMs),
        });
      const poll = () => {
        timer = setTimeout(async () => {
          await tick().catch((err) => log.error({ err }, "could not claim jobs"));
          if (!stopped) poll();
        }, opts.pollMs ?? 1000);
        timer.unref();
      };
      poll();
    },
    /** Waits for the jobs that are running (or, with `abandon`, leaves them: their leases end). */
    async stop({ abandon = false } = {}) {
      stopped = true;
      abandoned = abandon;
      if (timer) clearTimeout(timer);
      timer = null;
      if (!abandon) await Promise.all([...running]);
    },
    /** Waits until no job runs (those that the ones running start when they end included). */
    async idle() {
      while (running.size || chained.size) await Promise.all([...running, ...chained]);
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;

/** Sets a job's total where it has none yet (counted after it was queued). */
export async function setJobTotal(db: Db, id: string, total: number): Promise<void> {
  await db
    .update(jobs)
    .set({ total })
    .where(and(eq(jobs.id, id), sql`${jobs.total} is null`));
}

/** One job by id (null when there is none). */
export async function getJob(db: Db, id: string): Promise<JobRow | null> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row ?? null;
}

/** The most recent jobs, newest first, of some kinds (all when empty) and a state. */
export function listJobs(
  db: Db,
  opts: { kinds?: readonly string[]; state?: JobRow["state"]; limit: number },
): Promise<JobRow[]> {
  const where: SQL[] = [];
  if (opts.kinds?.length)
    where.push(
      sql`${jobs.kind} in (${sql.join(
        opts.kinds.map((k) => sql`${k}`),
        sql`, `,
      )})`,
    );
  if (opts.state) where.push(eq(jobs.state, opts.state));
  return db
    .select()
    .from(jobs)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(opts.limit);
}

const wakers = new WeakMap<Db, Map<string, { runner: ReturnType<typeof createJobRunner>; log: JobLog }>>();

/**
 * Starts the queued jobs of a kind now, in this process, rather than at the serving runner's next
 * poll (or in a process that runs no poller, such as a test's): one runner per database and name,
 * claiming by the same rules as any other, so no job runs twice.
 */
export function wakeJobs(db: Db, name: string, options: () => RunnerOptions): void {
  const named: Map<string, { runner: ReturnType<typeof createJobRunner>; log: JobLog }> =
    wakers.get(db) ?? new Map();
  wakers.set(db, named);
  let waker = named.get(name);
  if (!waker) {
    const opts = options();
    waker = { runner: createJobRunner(db, opts), log: opts.log };
    named.set(name, waker);
  }
  const { log } = waker;
  void waker.runner.tick().catch((err) => log.error({ err, name }, "could not start jobs"));
}

/**
 * Makes the running jobs claimable at once. Only where no other process can be running them: the
 * embedded database at the start of its one serving process (a job shown running there lost its
 * runner with the last process, which was killed).
 */
export async function releaseOrphanedJobs(db: Db): Promise<number> {
  const released = await db
    .update(jobs)
    .set({ lockedUntil: sql`now() - interval '1 second'` })
    .where(eq(jobs.state, "running"))
    .returning({ id: jobs.id });
  return released.length;
}

/**
 * Runs jobs in this process until job `id` has ended (those queued before it in its turn first),
 * for a caller that waits for the work anyway (the command line on a database no server holds,
 * the demo seed). Answers the job's last row.
 */
export async function runUntilDone(db: Db, id: string, opts: RunnerOptions): Promise<JobRow> {
  const runner = createJobRunner(db, { concurrency: 1, ...opts });
  try {
    for (;;) {
      const started = await runner.tick();
      await runner.idle();
      const row = await getJob(db, id);
      if (!row) throw new Error(`no job ${id}`);
      if (row.state === "done" || row.state === "failed") return row;
      // Another runner holds it, or one queued before it in its turn.
      if (!started) await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await runner.stop();
  }
}
