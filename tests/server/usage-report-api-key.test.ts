import { eq } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalRuns } from "../../server/db/schema";
import { backends, signIn, startProduct, type TestProduct } from "./harness";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// GET /v1/usage/report?group_by=api_key: each usage event under the API key that started its eval
// run (POST /v1/eval-runs with x-api-key), else under null; never another organization's keys.

type Row = {
  starting_at: string;
  ending_at: string;
  api_key_id?: string | null;
  events: number;
  count: number;
  cost: string;
};
type Page = { group_by: string[]; data: Row[]; totals: { events: number; cost: string } };

const PERIOD = "starting_at=2026-01-01&ending_at=2026-02-01&bucket_width=1mo";

describe.each(backends())("usage report per API key on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  /** Runs: the member's key, the admin's bearer token, Globex's administrator's key. */
  const run = { memberKey: "", bearer: "", globex: "" };
  /** Key ids: the member's personal key, Globex's administrator's personal key. */
  const key = { member: "", globex: "" };

  /** A personal API key of `email`: its id and its secret. */
  async function newKey(email: string) {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/api_keys",
      headers: { cookie: await signIn(p, email), "x-csrf-token": "-.-" },
      payload: { expiration_option: "OneMonth" },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { api_key_id: string; api_key_token: string };
  }

  async function startRun(headers: Record<string, string>, workspaceUuid: string) {
    const res = await p.api.app.inject({
      method: "POST",
      url: "/v1/eval-runs",
      headers,
      payload: { workspace_uuid: workspaceUuid, name: "Nightly" },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().eval_run_uuid as string;
  }

  const ev = (id: string, evalRun: string | null) => ({
    event_id: id,
    occurred_at: "2026-01-10T12:00:00Z",
    operation: "generation",
    eval_type: "safety",
    ...(evalRun ? { eval_run_uuid: evalRun } : {}),
  }); // 0.0125 each

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setSamplePrices(p.database.db);
    await addCycle(p, fx.acmeId, "2026-01-01", null);
    await addCycle(p, fx.globexId, "2026-01-01", null);
    const safety = await fx.idOf("Safety Research");
    const member = await newKey("member@acme.test");
    key.member = member.api_key_id;
    run.memberKey = await startRun({ "x-api-key": member.api_key_token }, safety);
    run.bearer = await startRun(fx.headers("admin"), safety);

    const created = await fx.call("other", "POST", "/v1/workspaces/", {
      name: "Globex Evals",
      organization_uuid: fx.globexId,
    });
    expect(created.statusCode, created.body).toBe(201);
    const globex = await newKey("other@globex.test");
    key.globex = globex.api_key_id;
    run.globex = await startRun({ "x-api-key": globex.api_key_token }, created.json().workspace_uuid);

    await sendAsOperator(p, fx.acmeId, [
      ev("k1", run.memberKey),
      ev("k2", run.memberKey),
      ev("k3", run.memberKey),
      ev("b1", run.bearer),
      ev("n1", null),
      ev("u1", "run-never-started"),
      // Names Globex's run: Acme's usage is never mapped to Globex's key.
      ev("x1", run.globex),
    ]);
    await sendAsOperator(p, fx.globexId, [
      ev("g1", run.globex),
      // Names Acme's run: Globex's usage is never mapped to Acme's key.
      ev("g2", run.memberKey),
    ]);
  });
  afterAll(async () => p?.dispose());

  const report = async (who: "admin" | "other", query: string) => {
    const res = await fx.call(who, "GET", `/v1/usage/report?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };

  it("records on the run the key it was started with, and none for a bearer token", async () => {
    const [byKey] = await p.database.db
      .select()
      .from(evalRuns)
      .where(eq(evalRuns.evalRunUuid, run.memberKey));
    expect(byKey?.startedByApiKeyId).toBe(key.member);
    const [byToken] = await p.database.db.select().from(evalRuns).where(eq(evalRuns.evalRunUuid, run.bearer));
    expect(byToken?.startedByApiKeyId).toBeNull();
  });

  it("groups a run's events under the member's key that started it, the rest under null", async () => {
    const page = await report("admin", `${PERIOD}&group_by=api_key`);
    expect(page.group_by).toEqual(["api_key"]);
    expect(page.data).toEqual([
      {
        starting_at: "2026-01-01T00:00:00.000Z",
        ending_at: "2026-02-01T00:00:00.000Z",
        api_key_id: null,
        events: 4,
        count: 4,
        cost: "0.05",
      },
      {
        starting_at: "2026-01-01T00:00:00.000Z",
        ending_at: "2026-02-01T00:00:00.000Z",
        api_key_id: key.member,
        events: 3,
        count: 3,
        cost: "0.0375",
      },
    ]);
    expect(page.totals).toMatchObject({ events: 7, cost: "0.0875" });
    // Never the key's secret: only its id.
    expect(JSON.stringify(page)).not.toMatch(/api_key_token|token_hash/);
  });

  it("combines with the other groupings and the eval run filter, and answers CSV", async () => {
    const page = await report("admin", `${PERIOD}&group_by=api_key,eval_run&eval_run_uuid=${run.memberKey}`);
    expect(page.data.map((r) => [r.api_key_id, r.events])).toEqual([[key.member, 3]]);
    const csv = await fx.call(
      "admin",
      "GET",
      `/v1/usage/report?${PERIOD}&group_by=workspace,api_key&format=csv`,
    );
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, ...lines] = Papa.parse<string[]>(csv.body.trim()).data;
    expect(header).toEqual([
      "Starting At",
      "Ending At",
      "Workspace ID",
      "Workspace",
      "API Key ID",
      "Events",
      "Count",
      "Cost",
    ]);
    const keyCol = header?.indexOf("API Key ID") ?? -1;
    expect(lines.map((l) => l[keyCol]).sort()).toEqual(["", key.member].sort());
  });

  it("never shows another organization's keys, nor maps its usage to them", async () => {
    const acme = await report("admin", `${PERIOD}&group_by=api_key`);
    expect(acme.data.map((r) => r.api_key_id)).not.toContain(key.globex);
    const globex = await report("other", `${PERIOD}&group_by=api_key`);
    expect(globex.data.map((r) => [r.api_key_id, r.events])).toEqual([
      [null, 1],
      [key.globex, 1],
    ]);
    expect(JSON.stringify(globex)).not.toContain(key.member);
  });
});
