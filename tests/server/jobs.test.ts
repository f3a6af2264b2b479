import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobs } from "../../server/db/schema";
import type { Database } from "../../server/platform/database";
import { createJobRunner, enqueueJob, type JobHandler } from "../../server/platform/jobs";
import { backends } from "./harness";

// The one job mechanism: a job's states and progress as an operator reads them, a job resumed after
// its runner died, and organizations served in turn.

const silent = { info: () => {}, error: () => {} };
const row = async (db: Database["db"], id: string) =>
  (await db.select().from(jobs).where(eq(jobs.id, id)))[0];
const until = async (check: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe.each(backends())("jobs on $name", (backend) => {
  let database: Database;
  let drop = async () => {};
  beforeAll(async () => {
    const opened = await backend.open();
    database = opened.database;
    drop = opened.drop;
    await database.migrate();
  });
  afterAll(async () => {
    await database?.close();
    await drop();
  });

  it("goes queued, running with progress, done; a failure is failed with its error", async () => {
    const { db } = database;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const runner = createJobRunner(db, {
      log: silent,
      handlers: {
        "t-count": async ({ progress }) => {
          await progress(1, 3);
          await held;
          await progress(3);
        },
        "t-fail": async () => {
          throw new Error("the archive is not readable");
        },
      },
    });
    const ok = (await enqueueJob(db, { kind: "t-count", organizationUuid: "org-a" })) ?? "";
    const bad = (await enqueueJob(db, { kind: "t-fail", organizationUuid: "org-a" })) ?? "";
    expect((await row(db, ok))?.state).toBe("queued");
    expect(await runner.tick()).toBe(2);
    await until(async () => (await row(db, ok))?.done === 1);
    const midway = await row(db, ok);
    expect(midway).toMatchObject({ state: "running", done: 1, total: 3, finishedAt: null });
    expect(midway?.startedAt).toBeInstanceOf(Date);
    release();
    await runner.idle();
    const finished = await row(db, ok);
    expect(finished).toMatchObject({ state: "done", done: 3, total: 3, error: null });
    expect(finished?.finishedAt?.getTime()).toBeGreaterThanOrEqual(finished?.startedAt?.getTime() ?? 0);
    expect(await row(db, bad)).toMatchObject({ state: "failed", error: "the archive is not readable" });
    await runner.stop();
  });

  it("resumes a job whose runner died, from its recorded progress, on the next start", async () => {
    const { db } = database;
    const seen: number[] = [];
    const items =
      (hang: boolean): JobHandler =>
      async ({ job, progress }) => {
        for (let i = job.done; i < 5; i++) {
          if (hang && i === 2) await new Promise(() => {});
          seen.push(i);
          await progress(i + 1, 5);
        }
      };
    const id = (await enqueueJob(db, { kind: "t-resume", organizationUuid: "org-r" })) ?? "";
    const first = createJobRunner(db, { log: silent, leaseMs: 300, handlers: { "t-resume": items(true) } });
    await first.tick();
    await until(async () => (await row(db, id))?.done === 2);
    // The process dies: nothing more is written for the job, its lease runs out.
    await first.stop({ abandon: true });
    const restarted = createJobRunner(db, {
      log: silent,
      leaseMs: 300,
      handlers: { "t-resume": items(false) },
    });
    expect(await restarted.tick()).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    expect(await restarted.tick()).toBe(1);
    await restarted.idle();
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(await row(db, id)).toMatchObject({ state: "done", done: 5, attempts: 2 });
    await restarted.stop();
  });

  it("serves organizations in turn: a tenant's backlog never holds another's job back", async () => {
    const { db } = database;
    const order: string[] = [];
    for (let i = 0; i < 6; i++) await enqueueJob(db, { kind: "t-fair", organizationUuid: "org-big" });
    await enqueueJob(db, { kind: "t-fair", organizationUuid: "org-small" });
    await enqueueJob(db, { kind: "t-fair", organizationUuid: "org-other" });
    const runner = createJobRunner(db, {
      log: silent,
      concurrency: 1,
      handlers: {
        "t-fair": async ({ job }) => {
          order.push(job.organizationUuid ?? "");
        },
      },
    });
    while ((await runner.tick()) > 0) await runner.idle();
    // Queued last, the two small tenants still run among the first three.
    expect(order.slice(0, 3).sort()).toEqual(["org-big", "org-other", "org-small"]);
    expect(order.filter((o) => o === "org-big")).toHaveLength(6);
    await runner.stop();
  });

  it("keeps one pending run of a recurring task, and queues the next when one ends", async () => {
    const { db } = database;
    let runs = 0;
    const every = { kind: "t-daily", everyMs: 86_400_000, firstAfterMs: 0 };
    const opts = { log: silent, recurring: [every], handlers: { "t-daily": async () => void runs++ } };
    const one = createJobRunner(db, opts);
    const two = createJobRunner(db, opts);
    await Promise.all([one.start(), two.start()]);
    await until(async () => runs === 1);
    await Promise.all([one.stop(), two.stop()]);
    const all = await db.select().from(jobs).where(eq(jobs.kind, "t-daily"));
    expect(all.map((j) => j.state).sort()).toEqual(["done", "queued"]);
    const next = all.find((j) => j.state === "queued");
    expect(next?.runAfter.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
  });
});
