import { eq } from "drizzle-orm";
import { liveWorkspacesOf } from "../db/live-workspaces";
import { workspaceMembers, workspaces } from "../db/schema";
import { type WorkspaceNames, workspaceNames } from "../metering/usage/cache";
import type { Db } from "../platform/database";
import type { IdentityGateway } from "../platform/identity-gateway";
import { loadingCache } from "../platform/loading-cache";
import { announceChange, type ChangeWatcher, notifyChange } from "../platform/token-revocation";
import type { WorkspaceStore } from "./store";

/**
 * How long an organization's workspaces, their members and its name are served from memory.
 * Every change made through this process drops them at once, and other processes hear of it
 * through PostgreSQL NOTIFY; this lifetime only bounds how stale a missed notice leaves them.
 */
export const WORKSPACE_CACHE_TTL_MS = 3000;
const MAX_ORGANIZATIONS = 10_000;

/** How every entry here is kept (and the current user's other parts, api/accounts.ts): reloaded in
 * the background after 2 s of use, so a busy organization never waits on a reload. */
export const WORKSPACE_CACHE_OPTIONS = {
  ttlMs: WORKSPACE_CACHE_TTL_MS,
  refreshAfterMs: 2000,
  max: MAX_ORGANIZATIONS,
} as const;

type Watch = (h: ChangeWatcher) => () => Promise<void>;

/**
 * The organization's workspace reads most calls make (the list, one live workspace, "is this
 * user a member") and its name, per organization in memory, in front of the workspace store and
 * the identity gateway. Every workspace write goes through the returned store: after it, this
 * process drops the organization's entries and tells the others (notice "org:<id>").
 */
export function cacheWorkspaces(db: Db, store: WorkspaceStore, gateway: IdentityGateway, watch?: Watch) {
  const opts = WORKSPACE_CACHE_OPTIONS;
  const live = loadingCache({
    ...opts,
    load: (org: string) => store.list(org, { includeDeleted: false }),
  });
  const all = loadingCache({
    ...opts,
    load: (org: string) => store.list(org, { includeDeleted: true }),
  });
  const members = loadingCache({ ...opts, load: (org: string) => membersOf(db, org) });
  const orgs = loadingCache({ ...opts, load: (org: string) => gateway.findOrganization(org) });
  // Each user's current workspace (the current user's answer, on every page's first load), keyed
  // by organization and user, and dropped with the rest of the organization's entries.
  const mine = loadingCache({
    ...opts,
    load: (key: string) => store.myWorkspace(...orgAndUserOf(key)),
  });
  const caches = [live, all, members, orgs];

  const drop = (orgId: string) => {
    for (const c of caches) c.cache.delete(orgId);
    mine.dropWhere((_, key) => orgAndUserOf(key)[0] === orgId);
  };
  const clear = () => {
    for (const c of caches) c.cache.clear();
    mine.cache.clear();
  };
  const unwatch = watch?.({ notice: (topic, id) => topic === "org" && drop(id), reset: clear });

  /** After a write: this process at once (every cache on this database), then the others. */
  async function changed(orgId: string) {
    drop(orgId);
    announceChange(db, "org", orgId);
    // Best effort: a lost notice leaves other processes stale for WORKSPACE_CACHE_TTL_MS at most.
    await notifyChange(db, "org", orgId).catch(() => {});
  }

  /** Runs a write of the organization's workspaces, then says so (also when it failed halfway). */
  const writing =
    <A extends [string, ...unknown[]], R>(write: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await write(...a);
      } finally {
        await changed(a[0]);
      }
    };

  const cached: WorkspaceStore = {
    ...store,
    async list(orgId, o) {
      return (o.includeDeleted ? all : live).get(orgId);
    },
    async get(orgId, uuid) {
      return (await live.get(orgId)).find((w) => w.workspaceUuid === uuid) ?? null;
    },
    async isMember(orgId, uuid, userId) {
      return (await members.get(orgId)).has(memberKey(uuid, userId));
    },
    async myWorkspace(orgId, userId) {
      return mine.get(orgAndUserKey(orgId, userId));
    },
    chooseCurrent: writing(store.chooseCurrent),
    createWorkspace: writing(store.createWorkspace),
    renameWorkspace: writing(store.renameWorkspace),
    deleteWorkspace: writing(store.deleteWorkspace),
    addWorkspaceMember: writing(store.addWorkspaceMember),
    removeWorkspaceMember: writing(store.removeWorkspaceMember),
    async restoreWorkspace(uuid, actor) {
      const r = await store.restoreWorkspace(uuid, actor);
      if (r.status === "restored") await changed(r.workspace.organizationUuid);
      return r;
    },
    // The demo seed's writes name no organization (or are rare enough): everything goes.
    async create(orgId, name) {
      const row = await store.create(orgId, name);
      await changed(orgId);
      return row;
    },
    async addMember(workspaceUuid, user, role) {
      await store.addMember(workspaceUuid, user, role);
      clear();
    },
  };

  return {
    workspaces: cached,
    /** The gateway with organizations' names cached alongside their workspaces. */
    gateway: { ...gateway, findOrganization: async (orgId: string) => orgs.get(orgId) } as IdentityGateway,
    async close() {
      clear();
      await unwatch?.();
    },
  };
}

const memberKey = (workspaceUuid: string, userId: string) => `${workspaceUuid} ${userId}`;
/** The key of a user in an organization, and its two ids back from it (ids hold no spaces). */
const orgAndUserKey = (orgId: string, userId: string) => `${orgId} ${userId}`;
const orgAndUserOf = (key: string): [string, string] => {
  const at = key.indexOf(" ");
  return [key.slice(0, at), key.slice(at + 1)];
};

/** Who belongs to which of the organization's live workspaces. */
async function membersOf(db: Db, orgId: string): Promise<Set<string>> {
  const rows = await db
    .select({ uuid: workspaceMembers.workspaceUuid, userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaceMembers.workspaceUuid, workspaces.workspaceUuid))
    .where(liveWorkspacesOf(orgId));
  return new Set(rows.map((r) => memberKey(r.uuid, r.userId)));
}

/**
 * The organization's workspace names, deleted workspaces' too (usage keeps their uuids), through
 * `store`: the workspace cache in the API, dropped at once by a rename through this process.
 */
export async function workspaceNamesOf(store: WorkspaceStore, orgId: string): Promise<Map<string, string>> {
  const rows = await store.list(orgId, { includeDeleted: true });
  return new Map(rows.map((w) => [w.workspaceUuid, w.name]));
}

/**
 * Workspace names for the usage reads: through the API's workspace cache when there is one (names
 * are shown, never filtered or summed on, so the cache spares a statement a read), else read.
 */
export const workspaceNamesFrom =
  (db: Db, store: WorkspaceStore | undefined): WorkspaceNames =>
  (org) =>
    store ? workspaceNamesOf(store, org) : workspaceNames(db, org);
