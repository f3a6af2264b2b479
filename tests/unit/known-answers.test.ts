// The shell's own queries (the session check, the current user, the access checks) start with
// their answers once the current user has loaded, so the gate, the layout, the route guard and the
// page render in one pass; before that, and for a user who may not, they ask as before. And the
// session's role, which starts the landing page's early reads, follows the API's rule.
import type { AuthenticationInfo } from "@propelauth/javascript";
import { keys } from "@refinedev/core";
import { QueryObserver } from "@tanstack/react-query";
import { describe, expect, it, vi } from "vitest";
import { sessionMembership } from "../../src/lib/session-membership";
import { createCurrentUserSource } from "../../src/providers/current-user";
import type { CurrentUser } from "../../src/providers/current-user-types";
import { FirstAnswersQueryClient } from "../../src/providers/first-answers";
import { knownAnswers } from "../../src/providers/known-answers";
import { refineResources } from "../../src/resources";
import { usageRecords } from "../../src/resources/usage-records";
import { workspaces } from "../../src/resources/workspaces";
import { API_URL, accountsMe } from "./support/fakes";

function shell(me: CurrentUser) {
  const apiFetch = vi.fn(async () => me) as never;
  const currentUser = createCurrentUserSource(
    apiFetch,
    async () => ({ accessToken: "t" }) as AuthenticationInfo,
  );
  const client = new FirstAnswersQueryClient(
    {},
    { urls: { default: API_URL }, resources: refineResources, known: knownAnswers(currentUser) },
  );
  return { currentUser, client };
}

/** What a component's first render reads of `queryKey`, before any effect ran. */
function firstRender(
  client: FirstAnswersQueryClient,
  queryKey: readonly unknown[],
  queryFn: () => Promise<unknown>,
) {
  const observer = new QueryObserver(client, { queryKey, queryFn });
  return {
    observer,
    data: observer.getOptimisticResult(client.defaultQueryOptions({ queryKey, queryFn })).data,
  };
}

const check = keys().auth().action("check").get();
const identity = keys().auth().action("identity").get();
/** The route guard's key (CanAccess → useCan), params included. */
const access = (resource: string) =>
  keys()
    .access()
    .resource(resource)
    .action("list")
    .params({ params: { resource: { name: resource } }, enabled: undefined })
    .get();

describe("the shell's queries once the current user is known", () => {
  it("render answered at once and ask nothing when they mount", async () => {
    const me = accountsMe({ is_admin: true, email: "admin@acme.test" });
    const { currentUser, client } = shell(me);
    await currentUser.get();
    const asked = vi.fn(async () => ({}));
    const first = [
      firstRender(client, check, asked),
      firstRender(client, identity, asked),
      firstRender(client, access(usageRecords.name), asked),
    ];
    expect(first.map((f) => f.data)).toEqual([{ authenticated: true }, me, { can: true }]);
    const off = first.map((f) => f.observer.subscribe(() => {}));
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).not.toHaveBeenCalled();
    for (const stop of off) stop();
  });

  it("answer access as the access-control provider does: a member is refused Billing & Usage", async () => {
    const { currentUser, client } = shell(accountsMe({ is_admin: false }));
    await currentUser.get();
    const asked = vi.fn(async () => ({}));
    expect(firstRender(client, access(usageRecords.name), asked).data).toEqual({
      can: false,
      reason: "Administrators only",
    });
    expect(firstRender(client, access(workspaces.name), asked).data).toEqual({ can: true });
  });

  it("ask as before while the current user is still loading", async () => {
    const { client } = shell(accountsMe());
    const asked = vi.fn(async () => ({ authenticated: true }));
    const { observer, data } = firstRender(client, check, asked);
    expect(data).toBeUndefined();
    const stop = observer.subscribe(() => {});
    await vi.waitFor(() => expect(asked).toHaveBeenCalledTimes(1));
    stop();
  });
});

describe("the session's organization and role", () => {
  const info = (orgs: Record<string, string[]>) =>
    ({
      orgIdToOrgMemberInfo: Object.fromEntries(
        Object.entries(orgs).map(([id, roles]) => [
          id,
          { orgId: id, userInheritedRolesPlusCurrentRole: roles },
        ]),
      ),
    }) as unknown as AuthenticationInfo;

  it("is the first organization's, as the API reads the token", () => {
    expect(sessionMembership(info({ o1: ["Admin", "Member"] }))).toEqual({ role: "admin", orgId: "o1" });
    expect(sessionMembership(info({ o1: ["Member"], o2: ["Admin"] }))).toEqual({
      role: "member",
      orgId: "o1",
    });
    expect(sessionMembership(info({}))).toEqual({ role: "member", orgId: undefined });
    expect(sessionMembership(null)).toBeNull();
  });
});
