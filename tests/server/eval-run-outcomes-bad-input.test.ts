import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startProduct, type TestProduct } from "./harness";
import { rowsOf, setUpTenants, type Tenants } from "./tenants";

// Bad input aimed at the outcome routes' own fields (the schema-driven suite, bad-input.test.ts,
// feeds every route generic values): counts that are negative, fractional, text, too large, not
// finite, in the wrong place or beside unknown fields; comparisons of too few, too many, repeated
// or unreadable runs. Each is a 400 in the error JSON naming the field, and changes nothing.

const SEED = 20_261_207;
const RUNS = 150;

/** A count that is not a whole number from 0 to 1,000,000,000, as JSON text. */
const badCount = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: -1 }).map(String),
  fc.integer({ min: 1_000_000_001, max: 2 ** 31 }).map(String),
  fc
    .double({ min: 0, max: 1e6, noNaN: true })
    .filter((d) => !Number.isInteger(d))
    .map(String),
  fc.constantFrom(
    "1e999",
    "-0.5",
    "1.0000001",
    "9007199254740993",
    '"7"',
    '""',
    "null",
    "true",
    "[]",
    "{}",
    '"1e3"',
  ),
);
const goodCount = fc.integer({ min: 0, max: 1_000_000_000 }).map(String);
const NAMES = ["passed", "failed", "errored"] as const;

/** An outcomes object (JSON text) with at least one bad count, or an unknown field, or not an object. */
const badOutcomes = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...NAMES),
      badCount,
      fc.dictionary(fc.constantFrom(...NAMES), goodCount, { maxKeys: 2 }),
    )
    .map(([name, bad, rest]) => {
      const fields = { ...rest, [name]: bad };
      return `{${Object.entries(fields)
        .map(([k, v]) => `"${k}":${v}`)
        .join(",")}}`;
    }),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 12 }), goodCount)
    .filter(([k]) => !(NAMES as readonly string[]).includes(k))
    .map(([k, v]) => `{"passed":1,${JSON.stringify(k)}:${v}}`),
  fc.constantFrom("null", "7", '"passed"', "[1,2,3]", "true"),
);

/** A comparison's query that is not 2 to 10 distinct readable run ids. */
const badCompare = fc.oneof(
  fc.constant(""),
  fc.constant("eval_run_uuid=one"),
  fc
    .integer({ min: 11, max: 30 })
    .map((n) => Array.from({ length: n }, (_, i) => `eval_run_uuid=r${i}`).join("&")),
  fc
    .string({ minLength: 1, maxLength: 8 })
    .map((id) => `eval_run_uuid=${encodeURIComponent(id)}&eval_run_uuid=${encodeURIComponent(id)}`),
  fc.constantFrom("%00", "a%00b", "", "x".repeat(201)).map((id) => `eval_run_uuid=ok&eval_run_uuid=${id}`),
  fc
    .string({ minLength: 1, maxLength: 10 })
    .filter((k) => k !== "eval_run_uuid" && /^[a-z_]+$/.test(k))
    .map((k) => `eval_run_uuid=a&eval_run_uuid=b&${k}=1`),
);

describe.each(backends())("bad outcome input on $name", (backend) => {
  let p: TestProduct;
  let t: Tenants;
  let run = "";
  beforeAll(async () => {
    p = await startProduct(backend, { API_RATE_LIMIT_PER_CREDENTIAL: "0", API_RATE_LIMIT_PER_ORG: "0" });
    t = await setUpTenants(p);
    run = t.reservedRun;
  });
  afterAll(async () => p?.dispose());

  const admin = () => ({ authorization: `Bearer ${t.tokens.get("admin@acme.test")}` });
  const state = async () =>
    JSON.stringify(
      rowsOf(
        await p.database.db.execute(sql`select (select count(*) from audit_log)::int as audits,
          (select count(*) from webhook_deliveries)::int as deliveries,
          (select json_agg(json_build_array(eval_run_uuid, finished_at, outcomes_passed, outcomes_failed, outcomes_errored)
            order by eval_run_uuid) from eval_runs) as runs`),
      ),
    );

  it("refuses every bad outcomes body of the outcomes call and the finish with a 400 naming it, changing nothing", async () => {
    const before = await state();
    await fc.assert(
      fc.asyncProperty(
        badOutcomes,
        fc.constantFrom("PUT outcomes", "POST finish"),
        async (outcomes, call) => {
          const [method, path] = call.split(" ") as ["PUT" | "POST", string];
          const res = await p.api.app.inject({
            method,
            url: `/v1/eval-runs/${run}/${path}`,
            headers: { ...admin(), "content-type": "application/json" },
            payload: `{"outcomes":${outcomes}}`,
          });
          const where = `${call} ${outcomes} → ${res.statusCode} ${res.body.slice(0, 200)}`;
          expect(res.statusCode, where).toBe(400);
          const error = res.json().error as { code: string; message: string };
          expect(error.code, where).toMatch(/^invalid_(request|json)$/);
          expect(error.message.length, where).toBeGreaterThan(0);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    expect(await state()).toBe(before);
  });

  it("refuses every bad comparison with a 400 in the error JSON", async () => {
    await fc.assert(
      fc.asyncProperty(badCompare, async (query) => {
        const res = await p.api.app.inject({
          method: "GET",
          url: `/v1/eval-runs/compare?${query}`,
          headers: admin(),
        });
        const where = `${query.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, where).toBe(400);
        expect(res.json().error.code, where).toBe("invalid_request");
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
