import { describe, expect, it } from "vitest";
import { allows, refusalReason, rolesOf } from "../../src/lib/resource-access";
import { createAccessControlProvider } from "../../src/providers/access-control-provider";
import { normalizeCurrentUser } from "../../src/providers/current-user";
import type { CurrentUser } from "../../src/providers/current-user-types";
import { resources } from "../../src/resources";
import { ADMINS, type ConsoleResource, EVERYONE, OPERATORS } from "../../src/resources/types";
import { accountsMe } from "./support/fakes";

const as = (me: Partial<CurrentUser> | Error) =>
  createAccessControlProvider({
    get: async () => {
      if (me instanceof Error) throw me;
      return accountsMe(me);
    },
    clear: () => {},
  });

/** The sider's entries for a user, in order: the declared entries (a list page, not hidden, as
 * Refine's useMenu offers them) the provider lets the user list; home is the first. */
async function siderEntries(me: Partial<CurrentUser>) {
  const provider = as(me);
  const entries: ConsoleResource[] = [];
  for (const resource of resources) {
    if (typeof resource.list !== "string" || resource.meta.hide) continue;
    if ((await provider.can({ resource: resource.name, action: "list" })).can) entries.push(resource);
  }
  return entries;
}
const names = async (me: Partial<CurrentUser>) => (await siderEntries(me)).map((r) => r.name);
const home = async (me: Partial<CurrentUser>) => (await siderEntries(me))[0]?.list;

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

  it("shows each role its sider entries and sends it home to the first", async () => {
    const [adminEntries, memberEntries] = [await names(admin), await names(member)];
    // Eval Runs follow Billing & Usage, whose figures they break down: administrators only.
    expect(adminEntries.slice(0, 3)).toEqual(["billing", "eval-runs", "workspaces"]);
    expect(memberEntries).not.toContain("billing");
    expect(memberEntries).not.toContain("eval-runs");
    expect(memberEntries).not.toContain("workspace-members");
    // Webhooks sit in the administrators' part, after the Audit Log; the delivery log has no entry.
    expect(adminEntries).toContain("webhook-endpoints");
    expect(adminEntries.indexOf("webhook-endpoints")).toBe(adminEntries.indexOf("audit-log") + 1);
    expect(adminEntries).not.toContain("webhook-deliveries");
    expect(memberEntries).not.toContain("webhook-endpoints");
    expect(await home(admin)).toBe("/");
    expect(await home(member)).toBe("/organization/workspaces");
  });
});

describe("the operator role", () => {
  const declared = (access: ConsoleResource["meta"]["access"]) => ({ meta: { label: "X", access } });
  const operatorOnly = declared({ list: OPERATORS, create: OPERATORS });

  it("is held by provider operators on top of their organization role", () => {
    expect(rolesOf({ is_admin: true })).toEqual(["admin"]);
    expect(rolesOf({ is_admin: false, is_operator: false })).toEqual(["member"]);
    expect(rolesOf({ is_admin: false, is_operator: true })).toEqual(["member", "operator"]);
    expect(rolesOf({ is_admin: true, is_operator: true })).toEqual(["admin", "operator"]);
    expect(rolesOf(null)).toEqual([]);
  });

  it("opens operator resources to operators only, and never anything to an unknown user", () => {
    for (const user of [
      { is_admin: false, is_operator: true },
      { is_admin: true, is_operator: true },
    ]) {
      expect(allows(operatorOnly, "list", user)).toBe(true);
      expect(allows(operatorOnly, "create", user)).toBe(true);
      expect(allows(operatorOnly, "delete", user)).toBe(false);
    }
    for (const user of [{ is_admin: true }, { is_admin: false }, { is_admin: true, is_operator: false }]) {
      expect(allows(operatorOnly, "list", user)).toBe(false);
    }
    expect(allows(operatorOnly, "list", null)).toBe(false);
    expect(allows(declared({ list: EVERYONE }), "list", null)).toBe(false);
    // Being an operator grants no organization rights.
    expect(allows(declared({ list: ADMINS }), "list", { is_admin: false, is_operator: true })).toBe(false);
    expect(allows(declared({ list: EVERYONE }), "list", { is_admin: false, is_operator: true })).toBe(true);
  });

  it("names who may do what is refused", () => {
    expect(refusalReason(operatorOnly, "list")).toBe("Provider operators only");
    expect(refusalReason(declared({ list: ADMINS }), "list")).toBe("Administrators only");
    expect(refusalReason(undefined, "list")).toBe("Administrators only");
  });

  it("is never an impersonation session's, even if the API said otherwise", () => {
    const auth = { user: { email: "member@acme.test" }, impersonatorUserId: "staff-1" } as never;
    expect(normalizeCurrentUser({ is_operator: true }, auth).is_operator).toBe(false);
    expect(normalizeCurrentUser({ is_operator: true, is_impersonating: true }, null).is_operator).toBe(false);
    expect(normalizeCurrentUser({ is_operator: true }, null).is_operator).toBe(true);
    expect(normalizeCurrentUser({}, null).is_operator).toBe(false);
  });
});

describe("the operator area", () => {
  const operatorResources = [
    "operator-organizations",
    "operator-price-rules",
    "operator-ingest-keys",
    "operator-jobs",
  ];
  const hidden = ["operator-billing-cycles", "operator-payments"];

  it("is open to provider operators only, whatever their organization role", async () => {
    for (const resource of [...operatorResources, ...hidden]) {
      expect(await as({ is_admin: false, is_operator: true }).can({ resource, action: "list" })).toEqual({
        can: true,
      });
      expect(await as({ is_admin: true, is_operator: true }).can({ resource, action: "list" })).toEqual({
        can: true,
      });
      for (const customer of [admin, member]) {
        expect(await as(customer).can({ resource, action: "list" })).toEqual({
          can: false,
          reason: "Provider operators only",
        });
      }
    }
    const operator = as({ is_admin: false, is_operator: true });
    expect(await operator.can({ resource: "operator-organizations", action: "show" })).toEqual({ can: true });
    expect(await operator.can({ resource: "operator-price-rules", action: "create" })).toEqual({ can: true });
    expect(await operator.can({ resource: "operator-ingest-keys", action: "create" })).toEqual({ can: true });
    expect(await operator.can({ resource: "operator-ingest-keys", action: "delete" })).toEqual({ can: true });
    expect(await operator.can({ resource: "operator-billing-cycles", action: "edit" })).toEqual({
      can: true,
    });
    expect(await operator.can({ resource: "operator-payments", action: "create" })).toEqual({ can: true });
    // Nothing is changed or deleted that the API does not offer: price rules and payments stay.
    expect(await operator.can({ resource: "operator-price-rules", action: "delete" })).toMatchObject({
      can: false,
    });
    expect(await operator.can({ resource: "operator-payments", action: "delete" })).toMatchObject({
      can: false,
    });
    for (const action of ["show", "create", "edit", "delete"]) {
      expect(await as(admin).can({ resource: "operator-ingest-keys", action })).toMatchObject({ can: false });
    }
  });

  it("does not make an operator an organization administrator", async () => {
    const operator = as({ is_admin: false, is_operator: true });
    expect(await operator.can({ resource: "billing", action: "list" })).toEqual({
      can: false,
      reason: "Administrators only",
    });
    expect(await operator.can({ resource: "workspaces", action: "create" })).toMatchObject({ can: false });
    expect(await operator.can({ resource: "workspaces", action: "list" })).toEqual({ can: true });
  });

  it("has sider entries, after the organization's, for operators only; home stays the first entry", async () => {
    expect((await names(admin)).filter((n) => n.startsWith("operator-"))).toEqual([]);
    expect((await names(member)).filter((n) => n.startsWith("operator-"))).toEqual([]);
    const operatorAdmin = await names({ is_admin: true, is_operator: true });
    expect(operatorAdmin.slice(-operatorResources.length)).toEqual(operatorResources);
    expect(operatorAdmin.slice(0, -operatorResources.length)).toEqual(await names(admin));
    expect((await names({ is_admin: false, is_operator: true })).slice(-operatorResources.length)).toEqual(
      operatorResources,
    );
    for (const name of hidden) expect(operatorAdmin).not.toContain(name);
    const operatorEntries = await siderEntries({ is_admin: true, is_operator: true });
    expect(
      operatorEntries.slice(-operatorResources.length).every((r) => r.meta.siderGroup === "Operator"),
    ).toBe(true);
    expect(await home({ is_admin: true, is_operator: true })).toBe("/");
    expect(await home({ is_admin: false, is_operator: true })).toBe("/organization/workspaces");
  });
});
