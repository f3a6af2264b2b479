import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingCycles } from "../../server/db/schema";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { restoreMonth } from "../../server/metering/shared/partitions";
import {
  doEventsCommand,
  parseEventsArgs,
  runEventsCommand,
} from "../../server/metering/shared/partitions-cli";
import {
  enqueuePartitionJob,
  PARTITION_ARCHIVE_JOB,
  PARTITION_RESTORE_JOB,
  partitionJobHandlers,
} from "../../server/metering/shared/partitions-job";
import { createJobRunner, getJob, type JobRunner, releaseOrphanedJobs } from "../../server/platform/jobs";
import { backends, startProduct, type TestProduct } from "./harness";
import { waitForJob } from "./job-wait";

// Archiving and restoring a month of usage events are jobs: the operator API answers at once (202)
// with the job, refusals that can be known then come at once (404, 409), and the job, followed
// through /v1/operator/jobs, says what it did. Safely re-runnable after kill -9: a job whose process
// died before its one transaction committed runs again; one that died after finds the month so.

const silent = { info: () => {}, error: () => {} };

describe.each(backends())("partition jobs on $name", (backend) => {
  let p: TestProduct;
  let runner: JobRunner;
  const operator = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const post = (url: string) => p.api.app.inject({ method: "POST", url, headers: operator() });

  beforeAll(async () => {
    p = await startProduct(backend);
    // The serving process's runner (serve.ts starts it; the test product does not).
    runner = createJobRunner(p.database.db, {
      handlers: partitionJobHandlers(p.database.db),
      log: silent,
      pollMs: 50,
    });
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
    await p?.dispose();
  });

  it("answers an archive and a restore at once with the job, which ends done with what it did", async () => {
    const db = p.database.db;
    const org = "org-partition-jobs";
    await db.insert(billingCycles).values({ organizationUuid: org, startDate: "2013-05-01", endDate: null });
    const events = Array.from({ length: 12 }, (_, i) => ({
      event_id: `pj-${i}`,
      occurred_at: `2013-05-${String(1 + i).padStart(2, "0")}T08:00:00Z`,
      operation: "generation",
      eval_type: "safety",
      quantity: 1,
    }));
    expect(await ingestUsage(db, org, events, { backfill: true })).toMatchObject({ accepted: 12 });

    expect((await post("/v1/operator/event-partitions/1999-01/archive")).statusCode).toBe(404);
    const open = await post("/v1/operator/event-partitions/2013-05/archive");
    expect(open.statusCode, open.body).toBe(409);
    expect(open.json().error.message).toContain("its billing cycle from 2013-05-01 is still open");

    await db
      .update(billingCycles)
      .set({ endDate: "2013-06-01" })
      .where(eq(billingCycles.organizationUuid, org));
    const started = Date.now();
    const archive = await post("/v1/operator/event-partitions/2013-05/archive");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(archive.statusCode, archive.body).toBe(202);
    expect(archive.json()).toMatchObject({
      month: "2013-05",
      job: { job_uuid: expect.any(String), total: 1 },
    });
    const archived = await waitForJob(p.api.app, operator(), archive.json().job.job_uuid);
    expect(archived).toMatchObject({
      kind: "partition-archive",
      state: "done",
      done: 1,
      total: 1,
      partition: { month: "2013-05", status: "archived", table: "usage_events_archive_y2013m05", rows: 12 },
    });

    // Restored by hand first, as if a process had committed the restore and died before recording
    // it: the job finds the month attached and ends done, changing nothing.
    expect(await restoreMonth(db, "2013-05")).toEqual({ status: "restored" });
    const again = await post("/v1/operator/event-partitions/2013-05/restore");
    expect(again.statusCode, again.body).toBe(202);
    const rerun = await waitForJob(p.api.app, operator(), again.json().job.job_uuid);
    expect(rerun).toMatchObject({ state: "done", partition: { month: "2013-05", status: "not_archived" } });
    expect((await post("/v1/operator/event-partitions/2031-01/restore")).statusCode).toBe(404);
  });

  it("the events command queues the job: --no-wait prints its id, otherwise it waits for what it did", async () => {
    const db = p.database.db;
    const parsed = parseEventsArgs(["archive", "--month", "2013-05", "--no-wait"]);
    expect(parsed).toEqual({ ok: true, value: { action: "archive", month: "2013-05", wait: false } });
    if (!parsed.ok) return;
    const queued = await runEventsCommand(db, parsed.value);
    expect(queued.ok).toBe(true);
    const jobUuid = /queued as job ([0-9a-f-]{36}) /.exec(queued.lines[0] ?? "")?.[1] ?? "";
    expect(queued.lines).toEqual([
      `Archiving 2013-05 queued as job ${jobUuid} (GET /v1/operator/jobs/${jobUuid}).`,
    ]);
    expect(await waitForJob(p.api.app, operator(), jobUuid)).toMatchObject({
      state: "done",
      partition: { status: "archived", rows: 12 },
    });

    const shown: [number, number | null][] = [];
    const restored = await doEventsCommand(db, { action: "restore", month: "2013-05" }, undefined, (d, t) =>
      shown.push([d, t]),
    );
    expect(restored).toEqual({
      ok: true,
      outcome: { action: "restore", month: "2013-05", status: "restored" },
    });
    expect(shown.at(-1)).toEqual([1, 1]);
    expect(await runEventsCommand(db, { action: "restore", month: "1999-01" })).toEqual({
      ok: false,
      lines: ["No archived table holds 1999-01."],
    });
  });

  it("runs a job again whose process died holding it (kill -9 before the commit), and it ends done", async () => {
    const db = p.database.db;
    await runner.stop();
    const queued = await enqueuePartitionJob(db, "archive", "2013-05");
    if (!queued.ok) throw new Error(queued.refusal);
    // A process claims it and dies mid-work: nothing committed, the row says running.
    const hang = () => new Promise<void>(() => {});
    const dying = createJobRunner(db, {
      handlers: { [PARTITION_ARCHIVE_JOB]: hang, [PARTITION_RESTORE_JOB]: hang },
      log: silent,
      leaseMs: 60_000,
    });
    expect(await dying.tick()).toBe(1);
    await dying.stop({ abandon: true });
    expect((await getJob(db, queued.jobUuid))?.state).toBe("running");
    // The next start (the embedded database's) makes it claimable at once; it runs again.
    await releaseOrphanedJobs(db);
    runner = createJobRunner(db, { handlers: partitionJobHandlers(db), log: silent, pollMs: 50 });
    await runner.start();
    expect(await waitForJob(p.api.app, operator(), queued.jobUuid)).toMatchObject({
      state: "done",
      partition: { status: "archived", rows: 12 },
    });
  });
});
