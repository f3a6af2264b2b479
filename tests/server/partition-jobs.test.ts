import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingCycles } from "../../server/db/schema";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { restoreMonth } from "../../server/metering/shared/partitions";
import { partitionJobHandlers } from "../../server/metering/shared/partitions-job";
import { createJobRunner, type JobRunner } from "../../server/platform/jobs";
import { backends, startProduct, type TestProduct } from "./harness";
import { waitForJob } from "./job-wait";

// Archiving and restoring a month of usage events are jobs: the operator API answers at once (202)
// with the job, refusals that can be known then come at once (404, 409), and the job, followed
// through /v1/operator/jobs, says what it did. A job run again after its work committed (a process
// killed between the two) finds the month so and ends done: safely re-runnable.

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
});
