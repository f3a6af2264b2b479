import { asc } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { beforeAll } from "vitest";
import { auditLog, currentWorkspace, workspaceMembers, workspaces } from "../../server/db/schema";
import { accessToken, type Backend, PASSWORD, productPerSuite, signIn, type TestProduct } from "./harness";

export type Who = "admin" | "member" | "newcomer" | "other" | "adminKey" | "memberKey" | "none";

export type Fixture = Awaited<ReturnType<typeof setUpWorkspaces>>;

/**
 * Called in a describe block: its product (the demo seeded, on `backend`) as `p` and the
 * workspaces fixture as `f`, set up before its tests and disposed after them.
 */
export function productWithWorkspaces(backend: Backend) {
  const suite = productPerSuite(backend) as { p: TestProduct; f: Fixture };
  beforeAll(async () => {
    suite.f = await setUpWorkspaces(suite.p);
  });
  return suite;
}

/**
 * The demo organization plus a second one ("Globex", other@globex.test its administrator), with
 * bearer tokens and personal API keys, and helpers to call the API and compare database state.
 */
export async function setUpWorkspaces(p: TestProduct) {
  const globex = await p.identity.admin.createOrganization("Globex", "globex");
  const other = await p.identity.admin.createUser({ email: "other@globex.test", password: PASSWORD });
  await p.identity.admin.addMember(globex.id, other.id, "Admin");

  const tokens = new Map<string, string>();
  for (const email of ["admin@acme.test", "member@acme.test", "newcomer@acme.test", "other@globex.test"])
    tokens.set(email, await accessToken(p, email));

  async function apiKey(email: string) {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/api_keys",
      headers: { cookie: await signIn(p, email), "x-csrf-token": "-.-" },
      payload: { expiration_option: "OneMonth" },
    });
    if (res.statusCode !== 200) throw new Error(`API key for ${email}: ${res.statusCode}`);
    return res.json().api_key_token as string;
  }
  const keys = { admin: await apiKey("admin@acme.test"), member: await apiKey("member@acme.test") };

  const me = await p.api.app.inject({
    method: "GET",
    url: "/v1/accounts/me",
    headers: { authorization: `Bearer ${tokens.get("admin@acme.test")}` },
  });
  const acmeId = me.json().organization.org_uuid as string;

  function headers(who: Who): Record<string, string> {
    switch (who) {
      case "admin":
        return { authorization: `Bearer ${tokens.get("admin@acme.test")}` };
      case "member":
        return { authorization: `Bearer ${tokens.get("member@acme.test")}` };
      case "newcomer":
        return { authorization: `Bearer ${tokens.get("newcomer@acme.test")}` };
      case "other":
        return { authorization: `Bearer ${tokens.get("other@globex.test")}` };
      case "adminKey":
        return { "x-api-key": keys.admin };
      case "memberKey":
        return { "x-api-key": keys.member };
      case "none":
        return {};
    }
  }

  const call = (
    who: Who,
    method: InjectOptions["method"],
    url: string,
    payload?: unknown,
    extra: Record<string, string> = {},
  ) =>
    p.api.app.inject({
      method,
      url,
      headers: { ...headers(who), ...extra },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  /** Every product row the workspace calls can touch, for before/after comparisons. */
  async function snapshot() {
    const db = p.database.db;
    return JSON.stringify({
      workspaces: await db.select().from(workspaces).orderBy(asc(workspaces.workspaceUuid)),
      members: await db
        .select()
        .from(workspaceMembers)
        .orderBy(asc(workspaceMembers.workspaceUuid), asc(workspaceMembers.userId)),
      current: await db.select().from(currentWorkspace).orderBy(asc(currentWorkspace.userId)),
      audit: await db.select().from(auditLog).orderBy(asc(auditLog.id)),
    });
  }

  async function idOf(name: string, who: Who = "admin") {
    const list = (await call(who, "GET", "/v1/workspaces/?show_deleted=true")).json() as {
      name: string;
      workspace_uuid: string;
    }[];
    const found = list.find((w) => w.name === name);
    if (!found) throw new Error(`no workspace ${name}`);
    return found.workspace_uuid;
  }

  return { call, headers, snapshot, idOf, acmeId, globexId: globex.id, tokens, keys };
}

/**
 * Creates workspace "Audited" as the admin, renames it "Audited 2" with the admin's API key, then
 * sends the same name again (a change that changes nothing); the workspace's id.
 */
export async function createRenamedWorkspace(f: Fixture): Promise<string> {
  const created = await f.call("admin", "POST", "/v1/workspaces/", {
    name: "Audited",
    organization_uuid: f.acmeId,
  });
  const id = created.json().workspace_uuid as string;
  await f.call("adminKey", "PUT", `/v1/workspaces/${id}`, {
    name: "Audited 2",
    organization_uuid: f.acmeId,
  });
  await f.call("admin", "PUT", `/v1/workspaces/${id}`, {
    name: "Audited 2",
    organization_uuid: f.acmeId,
  });
  return id;
}
