import { describe, expect, it } from "vitest";
import { homeRoute, menuResources } from "../../src/lib/resource-access";
import { createAccessControlProvider } from "../../src/providers/access-control-provider";
import type { CurrentUser } from "../../src/providers/current-user-types";
import { resources } from "../../src/resources";
import { accountsMe } from "./support/fakes";

const as = (me: Partial<CurrentUser> | Error) =>
  createAccessControlProvider({
    get: async () => {
      if (me instanceof Error) throw me;
      return accountsMe(me);
    },
    clear: () => {},
  });

const admin = { is_admin: true };
const member = { is_admin: false };

describe("access by action", () => {
  it("lets administrators manage workspaces and members only read them", async () => {
    for (const action of ["list", "show", "create", "edit", "delete"]) {
      expect(await as(admin).can({ resource: "workspaces", action })).toEqual({ can: true });
    }
    expect(await as(member).can({ resource: "workspaces", action: "list" })).toEqual({ can: true });
    expect(await as(member).can({ resource: "workspaces", action: "show" })).toEqual({ can: true });
    for (const action of ["create", "edit", "delete"]) {
      expect(await as(member).can({ resource: "workspaces", action })).toMatchObject({ can: false });
      expect(await as(member).can({ resource: "workspace-members", action })).toMatchObject({ can: false });
    }
    expect(await as(member).can({ resource: "workspace-members", action: "list" })).toEqual({ can: true });
  });

  it("keeps billing to administrators and personal API keys open to everyone", async () => {
    expect(await as(admin).can({ resource: "billing", action: "list" })).toEqual({ can: true });
    expect(await as(member).can({ resource: "billing", action: "list" })).toEqual({
      can: false,
      reason: "Administrators only",
    });
    expect(await as(member).can({ resource: "usage-records", action: "list" })).toMatchObject({ can: false });
    for (const action of ["list", "create", "delete"]) {
      expect(await as(member).can({ resource: "api-keys", action })).toEqual({ can: true });
    }
  });

  it("refuses actions nobody declared, unknown resources and an unknown user", async () => {
    expect(await as(admin).can({ resource: "api-keys", action: "edit" })).toMatchObject({ can: false });
    expect(await as(admin).can({ resource: "nothing", action: "list" })).toMatchObject({ can: false });
    expect(await as(new Error("offline")).can({ resource: "workspaces", action: "list" })).toMatchObject({
      can: false,
    });
  });

  it("shows each role its sider entries and sends it home to the first", () => {
    const names = (user: { is_admin: boolean }) => menuResources(resources, user).map((r) => r.name);
    // Eval Runs follow Billing & Usage, whose figures they break down: administrators only.
    expect(names(admin).slice(0, 3)).toEqual(["billing", "eval-runs", "workspaces"]);
    expect(names(member)).not.toContain("billing");
    expect(names(member)).not.toContain("eval-runs");
    expect(names(member)).not.toContain("workspace-members");
    // Webhooks sit in the administrators' part, after the Audit Log; the delivery log has no entry.
    expect(names(admin)).toContain("webhook-endpoints");
    expect(names(admin).indexOf("webhook-endpoints")).toBe(names(admin).indexOf("audit-log") + 1);
    expect(names(admin)).not.toContain("webhook-deliveries");
    expect(names(member)).not.toContain("webhook-endpoints");
    expect(homeRoute(resources, accountsMe(admin))).toBe("/");
    expect(homeRoute(resources, accountsMe(member))).toBe("/organization/workspaces");
  });
});
