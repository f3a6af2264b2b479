// Background jobs of every kind, on both databases: rows of the `jobs` table claimed by a runner in
// each serving process. Why not pg-boss or graphile-worker: see docs/architecture.md, "Jobs".
import { and, eq, sql } from "drizzle-orm";
import { jobs } from "../db/schema";
import type { Db } from "./database";

export type JobLog = { info(obj: object, msg: string): void; error(obj: object, msg: string): void };

export type JobRow = typeof jobs.$inferSelect;

export type JobContext = {
  job: JobRow;
  /** Records progress (and keeps the lease); a resumed job starts from the `done` it recorded. */
  progress(done: number, total?: number): Promise<void>;
};

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
export async function claimJob(db: Db, kinds: string[], leaseMs: number): Promise<JobRow | null> {
  if (!kinds.length) return null;
  const kindList = sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  );
  const result: unknown = await db.execute(sql`
    with next as (
      select j.id from jobs j
       where j.kind in (${kindList})
         and ((j.state = 'queued' and j.run_after <= now()) or (j.state = 'running' and j.locked_until < now()))
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
      const job = await claimJob(db, kinds, leaseMs);
      if (!job) break;
      started++;
      const p: Promise<void> = run(job)
        .catch((err) => log.error({ err, job: job.id }, "could not record a job's end"))
        .finally(() => running.delete(p));
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
    /** Waits until the jobs started so far have ended. */
    idle: () => Promise.all([...running]).then(() => undefined),
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
