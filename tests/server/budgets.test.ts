// Budgets through /v1/budgets: create, read, change and delete (administrators only, audited),
// the answers' current-cycle figures, and the validation of what administrators send.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { setUpBudgets } from "./budgets-fixture";
import { backends } from "./harness";
import { rowsOf } from "./tenants";
import { productWithWorkspaces } from "./workspaces-fixture";

describe.each(backends())("budgets API on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  let redTeam = "";
  let safety = "";
  beforeAll(async () => {
    b = await setUpBudgets(s.p, s.f);
    redTeam = await s.f.idOf("Red Team");
    safety = await s.f.idOf("Safety Research");
  });

  it("creates a workspace budget with the default thresholds and this cycle's spend", async () => {
    await b.spend(s.f.acmeId, safety, 12.5);
    const created = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: safety,
      amount: "100",
    });
    expect(created).toMatchObject({
      scope: "workspace",
      workspace_uuid: safety,
      workspace_name: "Safety Research",
      amount: "100.00",
      thresholds: [50, 80, 100],
      hard_limit: false,
      spent: "12.50",
      percent_used: 12.5,
      triggered_thresholds: [],
    });
    expect(new Date(created.cycle_start).getUTCDate()).toBe(1);
    expect(new Date(created.cycle_end) > new Date()).toBe(true);

    const list = await s.f.call("admin", "GET", "/v1/budgets");
    expect(list.statusCode).toBe(200);
    expect(list.json().budgets.map((x: { budget_uuid: string }) => x.budget_uuid)).toContain(
      created.budget_uuid,
    );
    const filtered = await s.f.call("admin", "GET", `/v1/budgets?workspace_uuid=${redTeam}`);
    expect(filtered.json()).toEqual({ budgets: [] });

    const again = await s.f.call("admin", "POST", "/v1/budgets", {
      scope: "workspace",
      workspace_uuid: safety,
      amount: "5",
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual({
      code: "conflict",
      message: "This workspace already has a budget; change that one instead.",
    });
  });

  it("keeps one organization budget, listed first, and counts all the organization's usage", async () => {
    const org = await b.createBudget("admin", {
      scope: "organization",
      amount: "1000.00",
      thresholds: [100, 25],
      hard_limit: true,
    });
    expect(org).toMatchObject({
      scope: "organization",
      workspace_uuid: null,
      workspace_name: null,
      thresholds: [25, 100],
      hard_limit: true,
    });
    await b.spend(s.f.acmeId, null, 1);
    const after = await b.budget("admin", org.budget_uuid);
    expect(BigInt(after.spent.replace(".", "")) - BigInt(org.spent.replace(".", ""))).toBe(100n);
    const list = (await s.f.call("admin", "GET", "/v1/budgets")).json().budgets;
    expect(list[0].budget_uuid).toBe(org.budget_uuid);
    const again = await s.f.call("admin", "POST", "/v1/budgets", { scope: "organization", amount: "1" });
    expect(again.statusCode).toBe(409);
    // Done with it: the other suites' figures stay the workspaces'.
    expect((await s.f.call("admin", "DELETE", `/v1/budgets/${org.budget_uuid}`)).statusCode).toBe(204);
  });

  it("changes and deletes a budget, writing budget.created/changed/deleted with before and after", async () => {
    const created = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: redTeam,
      amount: "40.50",
    });
    const patched = await s.f.call("adminKey", "PATCH", `/v1/budgets/${created.budget_uuid}`, {
      thresholds: [90, 10],
      hard_limit: true,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ amount: "40.50", thresholds: [10, 90], hard_limit: true });
    // The same values again change nothing and write no entry.
    await s.f.call("admin", "PATCH", `/v1/budgets/${created.budget_uuid}`, { thresholds: [10, 90] });
    const deleted = await s.f.call("admin", "DELETE", `/v1/budgets/${created.budget_uuid}`);
    expect(deleted.statusCode).toBe(204);
    expect((await s.f.call("admin", "GET", `/v1/budgets/${created.budget_uuid}`)).statusCode).toBe(404);
    expect((await s.f.call("admin", "DELETE", `/v1/budgets/${created.budget_uuid}`)).statusCode).toBe(404);

    const entries = await s.f.call(
      "admin",
      "GET",
      `/v1/audit-log?target_type=budget&target_id=${created.budget_uuid}`,
    );
    expect(entries.statusCode, entries.body).toBe(200);
    const rows = entries.json().entries as {
      action: string;
      source: string;
      target_label: string;
      before: unknown;
      after: unknown;
    }[];
    const byAction = Object.fromEntries(rows.map((r) => [r.action, r]));
    expect(rows.map((r) => r.action).sort()).toEqual(["budget.changed", "budget.created", "budget.deleted"]);
    const snapshot = { scope: "workspace", workspace_uuid: redTeam, amount: "40.50" };
    expect(byAction["budget.created"]).toMatchObject({
      source: "console",
      target_label: "Red Team",
      before: null,
      after: { ...snapshot, thresholds: [50, 80, 100], hard_limit: false },
    });
    expect(byAction["budget.changed"]).toMatchObject({
      source: "api_key",
      before: { ...snapshot, thresholds: [50, 80, 100], hard_limit: false },
      after: { ...snapshot, thresholds: [10, 90], hard_limit: true },
    });
    expect(byAction["budget.deleted"]).toMatchObject({
      before: { ...snapshot, thresholds: [10, 90], hard_limit: true },
      after: null,
    });
  });

  it("refuses what it cannot store with a clear 400, and writes nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ scope: "workspace", workspace_uuid: redTeam, amount: "0" }, "amount must be greater than 0."],
      [{ scope: "workspace", workspace_uuid: redTeam, amount: "-5" }, "USD decimal string"],
      [{ scope: "workspace", workspace_uuid: redTeam, amount: 100 }, "USD decimal string"],
      [{ scope: "workspace", workspace_uuid: redTeam, amount: "1.1234567" }, "at most 6 decimals"],
      [{ scope: "workspace", workspace_uuid: redTeam, amount: "2000000000" }, "at most 1,000,000,000"],
      [
        {
          scope: "workspace",
          workspace_uuid: redTeam,
          amount: "1",
          thresholds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        },
        "At most 10 thresholds per budget.",
      ],
      [
        { scope: "workspace", workspace_uuid: redTeam, amount: "1", thresholds: [0] },
        "Each threshold must be between 1 and 1000 (percent).",
      ],
      [
        { scope: "workspace", workspace_uuid: redTeam, amount: "1", thresholds: [1001] },
        "Each threshold must be between 1 and 1000 (percent).",
      ],
      [
        { scope: "workspace", workspace_uuid: redTeam, amount: "1", thresholds: [50, 50] },
        "thresholds must not repeat a value.",
      ],
      [
        { scope: "workspace", workspace_uuid: redTeam, amount: "1", thresholds: [] },
        "at least one threshold",
      ],
      [{ scope: "workspace", workspace_uuid: redTeam, amount: "1", thresholds: [12.5] }, "whole percents"],
      [
        { scope: "workspace", amount: "1" },
        'workspace_uuid is required for a budget with scope "workspace".',
      ],
      [{ scope: "organization", workspace_uuid: redTeam, amount: "1" }, "must be omitted"],
      [{ scope: "team", amount: "1" }, 'scope must be "organization" or "workspace".'],
      [
        { scope: "workspace", workspace_uuid: "nope", amount: "1" },
        "workspace_uuid must be a workspace uuid.",
      ],
      [{ scope: "workspace", workspace_uuid: redTeam, amount: "1", extra: 1 }, "extra"],
    ];
    const before = rowsOf(await b.db.execute(sql`select count(*)::int as n from budgets`))[0];
    for (const [body, message] of cases) {
      const res = await s.f.call("admin", "POST", "/v1/budgets", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe("invalid_request");
      expect(res.json().error.message, JSON.stringify(body)).toContain(message);
    }
    const after = rowsOf(await b.db.execute(sql`select count(*)::int as n from budgets`))[0];
    expect(after).toEqual(before);
  });

  it("answers 404 for a deleted workspace, another organization's workspace or budget", async () => {
    const deleted = await s.f.call("admin", "POST", "/v1/workspaces/", {
      name: "Budget Gone",
      organization_uuid: s.f.acmeId,
    });
    const gone = deleted.json().workspace_uuid as string;
    await s.f.call("admin", "DELETE", `/v1/workspaces/${gone}`);
    const onDeleted = await s.f.call("admin", "POST", "/v1/budgets", {
      scope: "workspace",
      workspace_uuid: gone,
      amount: "1",
    });
    expect(onDeleted.statusCode).toBe(404);
    expect(onDeleted.json().error.message).toBe("Workspace not found.");

    const globexWs = (
      await s.f.call("other", "POST", "/v1/workspaces/", { name: "G Lab", organization_uuid: s.f.globexId })
    ).json().workspace_uuid as string;
    const cross = await s.f.call("admin", "POST", "/v1/budgets", {
      scope: "workspace",
      workspace_uuid: globexWs,
      amount: "1",
    });
    expect(cross.statusCode).toBe(404);
    const theirs = await b.createBudget("other", {
      scope: "workspace",
      workspace_uuid: globexWs,
      amount: "9",
    });
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { amount: "1" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await s.f.call("admin", method, `/v1/budgets/${theirs.budget_uuid}`, body);
      expect(res.statusCode, method).toBe(404);
      expect(res.json().error.message).toBe("Budget not found.");
    }
    expect((await b.budget("other", theirs.budget_uuid)).amount).toBe("9.00");
    const acmeList = (await s.f.call("admin", "GET", "/v1/budgets")).json().budgets as {
      budget_uuid: string;
    }[];
    expect(acmeList.map((x) => x.budget_uuid)).not.toContain(theirs.budget_uuid);
  });

  it("is for administrators only", async () => {
    for (const who of ["member", "memberKey"] as const) {
      const res = await s.f.call(who, "GET", "/v1/budgets");
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe("Only organization administrators can see budgets.");
      expect((await s.f.call(who, "GET", "/v1/budgets/alerts")).statusCode).toBe(403);
      expect(
        (await s.f.call(who, "POST", "/v1/budgets", { scope: "organization", amount: "1" })).statusCode,
      ).toBe(403);
    }
    expect((await s.f.call("none", "GET", "/v1/budgets")).statusCode).toBe(401);
  });
});
