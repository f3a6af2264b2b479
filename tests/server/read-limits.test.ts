import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { createReadGate } from "../../server/api/read-gate";
import { openDatabase } from "../../server/platform/database";
import { ApiError, installApiErrors } from "../../server/platform/errors";
import { createScratchDatabase } from "./harness";

// Expensive dashboard reads are bounded: a statement time limit on their own connections, and a
// number of them per organization at once.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** An app whose one route runs `work` through the API's error handling. */
async function appRunning(work: () => Promise<unknown>) {
  const app = Fastify();
  installApiErrors(app);
  app.get("/read", async () => ({ rows: await work() }));
  await app.ready();
  return app;
}

const SLOW = sql`select count(*) from generate_series(1, 6000000)`;

describe("the statement time limit of dashboard reads", () => {
  it("answers 422 query_timeout on the embedded database, and other calls go on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-console-read-limit-"));
    dirs.push(dir);
    const database = await openDatabase({ kind: "pglite", dataDir: dir, readTimeoutMs: 150 });
    try {
      const app = await appRunning(() => database.readDb.execute(SLOW));
      const res = await app.inject({ method: "GET", url: "/read" });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        error: {
          code: "query_timeout",
          message:
            "The query ran past its time limit and was stopped; narrow the period, the filters or the grouping.",
        },
      });
      // Writes and the operator's tools have no such limit.
      await database.db.execute(SLOW);
      await app.close();
    } finally {
      await database.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)("cancels the statement on PostgreSQL", async () => {
    const scratch = await createScratchDatabase(
      process.env.DATABASE_URL ?? "",
      `ec_read_limit_${Date.now()}`,
    );
    const database = await openDatabase({ kind: "postgres", url: scratch.url, readTimeoutMs: 200 });
    try {
      const app = await appRunning(() => database.readDb.execute(sql`select pg_sleep(2)`));
      const started = Date.now();
      const res = await app.inject({ method: "GET", url: "/read" });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe("query_timeout");
      // The server stopped it: the answer came long before the statement would have ended.
      expect(Date.now() - started).toBeLessThan(1900);
      await database.db.execute(sql`select pg_sleep(0.3)`);
      await app.close();
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});

describe("expensive reads per organization", () => {
  it("admits a kind's limit and the total, refuses past them with 429 and Retry-After, per organization", async () => {
    const gate = createReadGate(3);
    const csv = { name: "csv", limit: 2, refusal: () => new ApiError("too_many_exports") };
    const page = { name: "page", limit: 3, refusal: () => new ApiError("too_many_reads") };
    const headers: Record<string, string> = {};
    const reply = { header: (k: string, v: string) => (headers[k] = v) } as never;
    const a1 = gate.enter("a", csv, reply);
    gate.enter("a", csv, reply);
    expect(() => gate.enter("a", csv, reply)).toThrow(expect.objectContaining({ code: "too_many_exports" }));
    expect(headers["retry-after"]).toBe("5");
    gate.enter("a", page, reply);
    expect(() => gate.enter("a", page, reply)).toThrow(expect.objectContaining({ code: "too_many_reads" }));
    // Another organization is not held back by the first one's reads.
    gate.enter("b", csv, reply);
    gate.enter("b", page, reply);
    // A release (twice is once) makes room again.
    a1();
    a1();
    gate.enter("a", csv, reply);
    expect(() => gate.enter("a", csv, reply)).toThrow();
  });
});
