// The allowance an eval service asks for before starting work (GET /v1/usage/allowance) and the
// 402 spend_limit_exceeded refusal: they flip when spend reaches a hard limit (the workspace's or
// the organization's) and back when the limit is raised; usage past a limit is still recorded.
import { beforeAll, describe, expect, it } from "vitest";
import { SPEND_LIMIT_ERROR_CODE } from "../../contract/budgets";
import { parseUsd } from "../../contract/money";
import { requireSpendAllowance } from "../../server/api/spend-limit";
import { setUpBudgets } from "./budgets-fixture";
import { backends } from "./harness";
import { productWithWorkspaces } from "./workspaces-fixture";

describe.each(backends())("spend allowance on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  let redTeam = "";
  let safety = "";
  beforeAll(async () => {
    b = await setUpBudgets(s.p, s.f);
    redTeam = await s.f.idOf("Red Team");
    safety = await s.f.idOf("Safety Research");
  });

  const allowance = async (who: "admin" | "member" | "memberKey" | "adminKey" | "other", ws: string) => {
    const res = await s.f.call(who, "GET", `/v1/usage/allowance?workspace_uuid=${ws}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it("allows work without any hard limit", async () => {
    // The member asks about their own workspace, with a token or their API key.
    const open = { workspace_uuid: safety, allowed: true, remaining: null, reason: null, free: null };
    for (const who of ["member", "memberKey"] as const) expect(await allowance(who, safety)).toEqual(open);
    expect(await allowance("admin", safety)).toEqual({ ...open, spent: null, reserved: null });
    // A budget without a hard limit changes nothing.
    await b.createBudget("admin", { scope: "workspace", workspace_uuid: redTeam, amount: "1" });
    await b.spend(s.f.acmeId, redTeam, 2);
    expect((await allowance("admin", redTeam)).allowed).toBe(true);
  });

  it("flips at the workspace's hard limit, records usage past it, and flips back when it is raised", async () => {
    const budget = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: safety,
      amount: "10",
      hard_limit: true,
    });
    expect(await allowance("member", safety)).toMatchObject({ allowed: true, remaining: "10.00" });
    await b.spend(s.f.acmeId, safety, 4);
    expect(await allowance("member", safety)).toMatchObject({ allowed: true, remaining: "6.00" });
    await expect(requireSpendAllowance(b.db, s.f.acmeId, safety)).resolves.toMatchObject({ allowed: true });

    await b.spend(s.f.acmeId, safety, 6);
    const reached = {
      workspace_uuid: safety,
      allowed: false,
      remaining: "0.00",
      reason: "workspace_hard_limit",
      free: "0.00",
    };
    expect(await allowance("member", safety)).toEqual(reached);
    expect(await allowance("admin", safety)).toEqual({ ...reached, spent: "10.00", reserved: "0.00" });
    await expect(requireSpendAllowance(b.db, s.f.acmeId, safety)).rejects.toMatchObject({
      status: 402,
      code: SPEND_LIMIT_ERROR_CODE,
      message:
        "This workspace has reached its hard spend limit for the current billing cycle; an administrator can raise its budget.",
    });
    // The work-starting call of the member's API key answers the same.
    const run = await s.f.call("memberKey", "POST", "/v1/eval-runs", { workspace_uuid: safety });
    expect(run.statusCode, run.body).toBe(402);
    expect(run.json().error.code).toBe(SPEND_LIMIT_ERROR_CODE);
    // Usage that happened is recorded all the same.
    await b.spend(s.f.acmeId, safety, 1.5);
    expect((await b.budget("admin", budget.budget_uuid)).spent).toBe("11.50");
    // Other workspaces are not held by this workspace's limit.
    expect((await allowance("admin", redTeam)).allowed).toBe(true);

    await s.f.call("admin", "PATCH", `/v1/budgets/${budget.budget_uuid}`, { amount: "20" });
    expect(await allowance("member", safety)).toMatchObject({
      allowed: true,
      remaining: "8.50",
      reason: null,
    });
    expect(
      (await s.f.call("memberKey", "POST", "/v1/eval-runs", { workspace_uuid: safety })).statusCode,
    ).toBe(201);
  });

  it("tells members and their keys whether work may start and what is free, never the spend", async () => {
    // Spend is a cost read, and cost reads are administrators': a member learns neither what the
    // organization spent this cycle nor what runs hold reserved, with a token or their API key.
    const org = await b.createBudget("admin", { scope: "organization", amount: "1000", hard_limit: true });
    await b.spend(s.f.acmeId, redTeam, 9.15);
    const run = await s.f.call("admin", "POST", "/v1/eval-runs", {
      workspace_uuid: safety,
      estimate: { cost: "3.5" },
    });
    expect(run.statusCode, run.body).toBe(201);
    const full = await allowance("admin", safety);
    expect(full).toMatchObject({ allowed: true, reason: null, reserved: "3.50" });
    expect(parseUsd(full.spent)).toBeGreaterThan(parseUsd("9.15"));
    const { spent, reserved: _reserved, ...free } = full;
    for (const who of ["member", "memberKey"] as const) {
      const res = await s.f.call(who, "GET", `/v1/usage/allowance?workspace_uuid=${safety}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(free);
      expect(res.body).not.toContain(spent);
    }
    // An administrator's API key is told the spend, as the administrator is.
    expect(await allowance("adminKey", safety)).toEqual(full);
    await s.f.call("admin", "POST", `/v1/eval-runs/${run.json().eval_run_uuid}/finish`, {});
    await s.f.call("admin", "DELETE", `/v1/budgets/${org.budget_uuid}`);
  });

  it("holds every workspace at the organization's hard limit until it is lifted", async () => {
    const org = await b.createBudget("admin", { scope: "organization", amount: "5", hard_limit: true });
    expect(await allowance("admin", redTeam)).toMatchObject({
      workspace_uuid: redTeam,
      allowed: false,
      remaining: "0.00",
      reason: "organization_hard_limit",
      reserved: "0.00",
      free: "0.00",
    });
    await expect(requireSpendAllowance(b.db, s.f.acmeId, redTeam)).rejects.toMatchObject({
      status: 402,
      code: SPEND_LIMIT_ERROR_CODE,
    });
    await s.f.call("admin", "PATCH", `/v1/budgets/${org.budget_uuid}`, { hard_limit: false });
    expect(await allowance("admin", redTeam)).toMatchObject({ allowed: true, remaining: null });
    await s.f.call("admin", "DELETE", `/v1/budgets/${org.budget_uuid}`);
  });

  it("answers only about workspaces the caller may see", async () => {
    const globexWs = (
      await s.f.call("other", "POST", "/v1/workspaces/", { name: "G Allow", organization_uuid: s.f.globexId })
    ).json().workspace_uuid as string;
    for (const [who, ws] of [
      ["member", redTeam],
      ["memberKey", redTeam],
      ["admin", globexWs],
      ["adminKey", globexWs],
      ["other", safety],
    ] as const) {
      const res = await s.f.call(who, "GET", `/v1/usage/allowance?workspace_uuid=${ws}`);
      expect(res.statusCode, `${who} ${ws}`).toBe(404);
      expect(res.json().error).toEqual({ code: "not_found", message: "Workspace not found." });
    }
    expect((await allowance("other", globexWs)).allowed).toBe(true);
    for (const query of ["", "?workspace_uuid=nope", `?workspace_uuid=${safety}&x=1`]) {
      const res = await s.f.call("member", "GET", `/v1/usage/allowance${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe("invalid_request");
    }
    expect((await s.f.call("none", "GET", `/v1/usage/allowance?workspace_uuid=${safety}`)).statusCode).toBe(
      401,
    );
  });

  it("documents the allowance call and the 402 error in OpenAPI", async () => {
    const doc = (await s.f.call("none", "GET", "/v1/openapi.json")).json();
    const op = doc.paths["/v1/usage/allowance"].get;
    expect(op.description).toContain(SPEND_LIMIT_ERROR_CODE);
    expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "404"]);
    // Members' answer is its own schema, without the spend.
    expect(JSON.stringify(op.responses["200"])).toContain("#/components/schemas/MemberAllowance");
    const member = doc.components.schemas.MemberAllowance;
    expect(Object.keys(member.properties).sort()).toEqual([
      "allowed",
      "free",
      "reason",
      "remaining",
      "workspace_uuid",
    ]);
    expect(doc.components.schemas.Allowance.required).toEqual(expect.arrayContaining(["spent", "reserved"]));
    expect(doc.paths["/v1/budgets"].post.responses["409"]).toBeDefined();
    expect(JSON.stringify(doc.components.schemas.Error)).toContain("spend_limit_exceeded (402)");
    expect(doc.components.schemas.SpendLimitError.properties.error.properties.code.const).toBe(
      SPEND_LIMIT_ERROR_CODE,
    );
    expect(doc.paths["/v1/eval-runs"].post.responses["402"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/SpendLimitError",
    );
  });
});
