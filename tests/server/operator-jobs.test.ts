import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePriceRule } from "../../server/metering/pricing/prices";
import { rerateJobHandler, SERIAL_JOB_KINDS } from "../../server/metering/pricing/rerate-job";
import { createJobRunner } from "../../server/platform/jobs";
import { backends, startProduct, type TestProduct } from "./harness";
import { waitForJob } from "./job-wait";
import { addCycle, PAST, sendAsOperator } from "./usage-setup";

// Re-rating after a price change is a job: the price answers at once with the job, which an
// operator follows through /v1/operator/jobs; an organization's second change waits queued behind
// its first, and another organization's runs meanwhile.

const silent = { info: () => {}, error: () => {} };
type Rows<T> = { rows: T[] };

describe.each(backends())("re-rating jobs on $name", (backend) => {
  let p: TestProduct;
  const operator = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const call = (method: "GET" | "POST", url: string, payload?: object) =>
    p.api.app.inject({ method, url, headers: operator(), ...(payload ? { payload } : {}) });
  const events = (n: number, op: string) =>
    Array.from({ length: n }, (_, i) => ({
      event_id: `${op}-${i}`,
      occurred_at: new Date(Date.now() - 60_000 - i * 1000).toISOString(),
      operation: op,
      eval_type: "safety",
      quantity: 1 + (i % 3),
    }));
  const costs = async (org: string, op: string) =>
    (
      (await p.database.db.execute(sql`
        select distinct unit_price_micros::text as unit from usage_events
         where organization_uuid = ${org} and operation = ${op}`)) as unknown as Rows<{ unit: string }>
    ).rows.map((r) => r.unit);
  const org = async (slug: string) => {
    const id = (await p.identity.admin.createOrganization(slug, slug)).id;
    await addCycle(p, id, "2026-01-01", null);
    return id;
  };

  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => {
    await p?.dispose();
  });

  it("answers a price at once with its re-rating job, which ends done with what it moved", async () => {
    const acme = await org("jobs-answer");
    await call("POST", "/v1/operator/price-rules", {
      organization_uuid: acme,
      operation: "job-op",
      unit_price_usd: "0.001",
      valid_from: PAST.toISOString(),
    });
    const sent = events(1_500, "job-op");
    for (let i = 0; i < sent.length; i += 500) await sendAsOperator(p, acme, sent.slice(i, i + 500));
    const started = Date.now();
    const res = await call("POST", "/v1/operator/price-rules", {
      organization_uuid: acme,
      operation: "job-op",
      unit_price_usd: "0.002",
      valid_from: PAST.toISOString(),
    });
    const answeredMs = Date.now() - started;
    expect(res.statusCode, res.body).toBe(201);
    expect(answeredMs).toBeLessThan(2_000);
    const { rerating } = res.json();
    expect(rerating).toMatchObject({ job_uuid: expect.any(String), total: 1_500 });
    expect(["queued", "running", "done"]).toContain(rerating.state);

    const job = await waitForJob(p.api.app, operator(), rerating.job_uuid);
    expect(job).toMatchObject({
      job_uuid: rerating.job_uuid,
      kind: "price-rerate",
      organization_uuid: acme,
      state: "done",
      done: 1_500,
      total: 1_500,
      error: null,
      price_rule_uuid: res.json().price_rule_uuid,
      rerating: { organizations: 1, events: 1_500 },
    });
    expect(job.started_at).toEqual(expect.any(String));
    expect(job.finished_at).toEqual(expect.any(String));
    expect(Date.parse(String(job.run_after))).toBeLessThanOrEqual(Date.parse(String(job.started_at)));
    expect(await costs(acme, "job-op")).toEqual(["2000"]);

    const list = await call("GET", "/v1/operator/jobs?limit=5");
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().jobs.map((j: { job_uuid: string }) => j.job_uuid)).toContain(rerating.job_uuid);
    const done = await call("GET", "/v1/operator/jobs?state=done&limit=200");
    expect(done.json().jobs.every((j: { state: string }) => j.state === "done")).toBe(true);

    // The price list links each rule to the re-rating it started (the console's link to the job).
    const rules = await call("GET", `/v1/operator/price-rules?organization_uuid=${acme}`);
    expect(rules.statusCode, rules.body).toBe(200);
    const linked = (
      rules.json().price_rules as { price_rule_uuid: string; rerating_job_uuid: string | null }[]
    ).map((r) => [r.price_rule_uuid, r.rerating_job_uuid]);
    expect(linked).toContainEqual([res.json().price_rule_uuid, rerating.job_uuid]);
    // Each rule its own job: the first price of the lineage started another.
    const jobs = linked.flatMap(([, j]) => (j ? [j] : []));
    expect(new Set(jobs).size).toBe(jobs.length);
  });

  it("refuses a job id that is not a uuid (400) and answers 404 for one no job has", async () => {
    const bad = await call("GET", "/v1/operator/jobs/not-a-uuid");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ message: expect.stringContaining("job_uuid") });
    const none = await call("GET", "/v1/operator/jobs/00000000-0000-4000-8000-000000000000");
    expect(none.statusCode).toBe(404);
    expect(none.json().error.code).toBe("not_found");
    expect((await call("GET", "/v1/operator/jobs?state=finished")).statusCode).toBe(400);
    expect((await call("GET", "/v1/operator/jobs?limit=0")).statusCode).toBe(400);
  });

  it("queues a second change of an organization behind its running one, runs another organization's meanwhile, and loses neither", async () => {
    const db = p.database.db;
    const acme = await org("jobs-serial");
    const globex = await org("jobs-other");
    for (const o of [acme, globex]) {
      await storePriceRule(db, {
        organizationUuid: o,
        operation: "q-op",
        unitPrice: "0.001",
        validFrom: PAST,
      });
      await sendAsOperator(p, o, events(40, "q-op"));
    }
    // The first change's job, held by a runner of this test once its open cycle is re-rated.
    let armed = false;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let holding = () => {};
    const reached = new Promise<void>((r) => (holding = r));
    const runner = createJobRunner(db, {
      log: silent,
      serialKinds: SERIAL_JOB_KINDS,
      handlers: {
        "price-rerate": rerateJobHandler(db, {
          fault: async (point) => {
            if (armed && point === "open cycle re-rated") {
              holding();
              await held;
            }
          },
        }),
      },
    });
    // Jobs left by the rules set above run first (without the hold: they have no open page).
    await runner.tick();
    await runner.idle();
    armed = true;
    const first = await storePriceRule(db, {
      organizationUuid: acme,
      operation: "q-op",
      unitPrice: "0.002",
      validFrom: PAST,
    });
    await runner.tick();
    await reached;

    const second = await call("POST", "/v1/operator/price-rules", {
      organization_uuid: acme,
      operation: "q-op",
      unit_price_usd: "0.003",
      valid_from: PAST.toISOString(),
    });
    expect(second.statusCode, second.body).toBe(201);
    const queued = second.json().rerating.job_uuid as string;
    expect(second.json().rerating.state).toBe("queued");
    const running = await call("GET", `/v1/operator/jobs/${first.jobUuid}`);
    expect(running.json()).toMatchObject({ state: "running" });

    // Another organization's change runs to its end while Acme's first is held.
    const other = await call("POST", "/v1/operator/price-rules", {
      organization_uuid: globex,
      operation: "q-op",
      unit_price_usd: "0.005",
      valid_from: PAST.toISOString(),
    });
    const otherJob = await waitForJob(p.api.app, operator(), other.json().rerating.job_uuid);
    expect(otherJob).toMatchObject({ state: "done", rerating: { events: 40 } });
    expect(await costs(globex, "q-op")).toEqual(["5000"]);
    expect((await call("GET", `/v1/operator/jobs/${queued}`)).json()).toMatchObject({
      state: "queued",
      started_at: null,
    });

    release();
    const firstDone = await waitForJob(p.api.app, operator(), first.jobUuid);
    const secondDone = await waitForJob(p.api.app, operator(), queued);
    await runner.stop();
    expect(firstDone).toMatchObject({ state: "done", rerating: { events: 40 } });
    expect(secondDone).toMatchObject({ state: "done", rerating: { events: 40 } });
    // The second started after the first ended, and the last price is every event's.
    expect(String(secondDone.started_at) >= String(firstDone.finished_at)).toBe(true);
    expect(await costs(acme, "q-op")).toEqual(["3000"]);
  });
});
