import { describe, expect, it } from "vitest";
import { type CycleRun, pageOfRuns } from "../../server/metering/usage/eval-runs";
import { createEvalRunsCache } from "../../server/metering/usage/eval-runs-cache";

const run = (id: string, over: Partial<CycleRun> = {}): CycleRun => ({
  eval_run_uuid: id,
  eval_name: `Eval ${id}`,
  eval_uuid: null,
  eval_type: "safety",
  workspace_uuid: "ws-a",
  started_by: null,
  started_at: "2026-11-01T00:00:00.000Z",
  last_event_at: null,
  events: 1,
  quantity: 1,
  costMicros: 0n,
  ...over,
});

describe("a page of a cycle's eval runs", () => {
  const runs = [
    run("r1", { costMicros: 5n, events: 3, started_at: "2026-11-03T00:00:00.000Z" }),
    run("r2", { costMicros: 10_000_000_000_000_000n, events: 1, started_at: "2026-11-01T00:00:00.000Z" }),
    run("r3", { costMicros: 5n, events: 2, workspace_uuid: null, eval_name: "Jailbreak SWEEP" }),
    run("r4", { costMicros: -7n, workspace_uuid: "ws-b", started_at: "2026-11-02T00:00:00.000Z" }),
  ];
  const names = new Map([["ws-a", "Alpha"]]);
  const q = {
    workspaceUuids: [],
    search: null,
    sort: "cost" as const,
    descending: true,
    page: 1,
    pageSize: 10,
  };
  const ids = (r: { runs: { eval_run_uuid: string }[] }) => r.runs.map((x) => x.eval_run_uuid);

  it("sorts exactly, ties by run id in the same direction", () => {
    expect(ids(pageOfRuns(runs, names, q))).toEqual(["r2", "r3", "r1", "r4"]);
    expect(ids(pageOfRuns(runs, names, { ...q, descending: false }))).toEqual(["r4", "r1", "r3", "r2"]);
    expect(ids(pageOfRuns(runs, names, { ...q, sort: "started_at" }))).toEqual(["r1", "r4", "r3", "r2"]);
  });

  it("formats money exactly and names workspaces, missing and unknown ones included", () => {
    const page = pageOfRuns(runs, names, q).runs;
    expect(page.map((r) => [r.cost, r.workspace_name])).toEqual([
      ["10000000000.00", "Alpha"],
      ["0.000005", "No Workspace"],
      ["0.000005", "Alpha"],
      ["-0.000007", "Unknown Workspace"],
    ]);
  });

  it("searches run ids and eval names case-insensitively, filters workspaces strictly, pages", () => {
    expect(ids(pageOfRuns(runs, names, { ...q, search: "jailbreak sw" }))).toEqual(["r3"]);
    expect(ids(pageOfRuns(runs, names, { ...q, search: "R4" }))).toEqual(["r4"]);
    expect(ids(pageOfRuns(runs, names, { ...q, workspaceUuids: ["ws-a"] }))).toEqual(["r2", "r1"]);
    const second = pageOfRuns(runs, names, { ...q, page: 2, pageSize: 3 });
    expect(second).toMatchObject({ total: 4 });
    expect(ids(second)).toEqual(["r4"]);
  });
});

describe("the eval runs cache", () => {
  it("shares one computation per key, forgets failures and evicts the least recently used", async () => {
    const cache = createEvalRunsCache(3);
    let computed = 0;
    const two = () => {
      computed++;
      return Promise.resolve([run("a"), run("b")]);
    };
    await Promise.all([cache.forceFetch("k1", { context: two }), cache.forceFetch("k1", { context: two })]);
    expect(computed).toBe(1);
    await expect(
      cache.forceFetch("bad", { context: () => Promise.reject(new Error("down")) }),
    ).rejects.toThrow("down");
    await Promise.resolve();
    await cache.forceFetch("bad", { context: two });
    expect(computed).toBe(2);
    // k1 and "bad" hold 4 runs, over the bound of 3: the older entry goes.
    expect(cache.size).toBe(1);
    await cache.forceFetch("k1", { context: two });
    expect(computed).toBe(3);
  });
});
