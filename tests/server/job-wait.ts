import type { FastifyInstance } from "fastify";
import { expect } from "vitest";

type Json = Record<string, unknown>;
type Injected = Awaited<ReturnType<FastifyInstance["inject"]>>;

/**
 * Follows a job through the operator API until it ends (as an operator's client would): answers the
 * job's last JSON. Every answer on the way must be a valid progress.
 */
export async function waitForJob(
  app: FastifyInstance,
  headers: Record<string, string>,
  jobUuid: string,
  ms = 60_000,
): Promise<Json> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await app.inject({ method: "GET", url: `/v1/operator/jobs/${jobUuid}`, headers });
    expect(res.statusCode, res.body).toBe(200);
    const job = res.json() as Json & { state: string; done: number; total: number | null };
    expect(job.done).toBeGreaterThanOrEqual(0);
    if (job.total !== null) expect(job.done).toBeLessThanOrEqual(job.total);
    if (job.state === "done" || job.state === "failed") return job;
    if (Date.now() > end) throw new Error(`job ${jobUuid} still ${job.state} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A price set through the API, its re-rating waited for: the answer with `rerating` replaced by
 * what the job re-rated (the synchronous answer of old), and the job's id beside it.
 */
export async function setPriceAndWait(
  app: FastifyInstance,
  headers: Record<string, string>,
  body: Json,
): Promise<Pick<Injected, "statusCode" | "body" | "json">> {
  const res = await app.inject({ method: "POST", url: "/v1/operator/price-rules", headers, payload: body });
  if (res.statusCode !== 201) return res;
  const answer = res.json() as Json & { rerating: { job_uuid: string } };
  const job = await waitForJob(app, headers, answer.rerating.job_uuid);
  expect(job.state, String(job.error)).toBe("done");
  const merged = { ...answer, job_uuid: answer.rerating.job_uuid, rerating: job.rerating };
  return { statusCode: res.statusCode, body: JSON.stringify(merged), json: <T>() => merged as T };
}
