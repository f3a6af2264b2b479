import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { liveWorkspacesOf } from "../db/live-workspaces";
import { currentWorkspace, workspaceMembers, workspaces } from "../db/schema";
import { type Actor, type AuditAction, type Snapshot, writeAudit } from "../platform/audit";
import type { Db, Tx } from "../platform/database";
import { DomainError } from "../platform/domain-error";

export type WorkspaceRow = {
  workspaceUuid: string;
  organizationUuid: string;
  name: string;
  createdAt: Date;
  deletedAt: Date | null;
  memberCount: number;
};

export type MemberRow = { email: string; user_id: string; role: string };

export type RestoreResult =
  | { status: "restored"; workspace: WorkspaceRow }
  | { status: "not_found" }
  | { status: "not_deleted" }
  | { status: "conflict"; name: string };

const columns = {
  workspaceUuid: workspaces.workspaceUuid,
  organizationUuid: workspaces.organizationUuid,
  name: workspaces.name,
  createdAt: workspaces.createdAt,
  deletedAt: workspaces.deletedAt,
  // Spelled out: drizzle's column helpers lose their table names inside this subquery.
  memberCount:
    sql<number>`(select count(*) from workspace_members wm where wm.workspace_uuid = workspaces.workspace_uuid)`.mapWith(
      Number,
    ),
};

export const nameTaken = (name: string) =>
  new DomainError(`A workspace named ${name} already exists.`, "conflict");

/**
 * Serializes workspace writes per organization for the rest of the transaction, so name
 * uniqueness and "no changes to a deleted workspace" hold under concurrent requests.
 */
async function lockOrganization(tx: Tx, orgId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`workspaces:${orgId}`}, 0))`);
}

async function assertNameFree(tx: Tx, orgId: string, name: string, except?: string) {
  const [clash] = await tx
    .select({ id: workspaces.workspaceUuid })
    .from(workspaces)
    .where(
      and(
        liveWorkspacesOf(orgId),
        sql`lower(${workspaces.name}) = lower(${name})`,
        except ? ne(workspaces.workspaceUuid, except) : undefined,
      ),
    )
    .limit(1);
  if (clash) throw nameTaken(name);
}

/** Changes one workspace's row and writes its audit row, in the transaction of the change. */
async function changeWorkspace(
  tx: Tx,
  target: { orgId: string; uuid: string; actor: Actor; label: string },
  set: { name?: string; deletedAt?: Date | null },
  action: AuditAction,
  change: { before?: Snapshot; after?: Snapshot },
) {
  await tx
    .update(workspaces)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(workspaces.workspaceUuid, target.uuid));
  await writeAudit(tx, {
    organizationUuid: target.orgId,
    actor: target.actor,
    action,
    target: { type: "workspace", id: target.uuid, label: target.label },
    ...change,
  });
}

async function liveWorkspace(tx: Tx | Db, orgId: string, uuid: string): Promise<WorkspaceRow | null> {
  const [row] = await tx
    .select(columns)
    .from(workspaces)
    .where(and(eq(workspaces.workspaceUuid, uuid), liveWorkspacesOf(orgId)));
  return row ?? null;
}

/** Reading the organization's workspaces: the user's own, the list, one live workspace. */
function workspaceReads(db: Db) {
  return {
    /**
     * The user's own workspace in the organization: the live one they chose as current, else
     * the first live one they were added to.
     */
    async myWorkspace(orgId: string, userId: string) {
      const [row] = await db
        .select({ workspace_uuid: workspaces.workspaceUuid, name: workspaces.name })
        .from(workspaceMembers)
        .innerJoin(workspaces, eq(workspaceMembers.workspaceUuid, workspaces.workspaceUuid))
        .leftJoin(
          currentWorkspace,
          and(
            eq(currentWorkspace.userId, workspaceMembers.userId),
            eq(currentWorkspace.organizationUuid, workspaces.organizationUuid),
            eq(currentWorkspace.workspaceUuid, workspaces.workspaceUuid),
          ),
        )
        .where(and(eq(workspaceMembers.userId, userId), liveWorkspacesOf(orgId)))
        .orderBy(sql`${currentWorkspace.workspaceUuid} is null`, asc(workspaceMembers.joinSeq))
        .limit(1);
      return row ?? null;
    },

    async list(orgId: string, opts: { includeDeleted: boolean }): Promise<WorkspaceRow[]> {
      return db
        .select(columns)
        .from(workspaces)
        .where(
          and(
            eq(workspaces.organizationUuid, orgId),
            opts.includeDeleted ? undefined : isNull(workspaces.deletedAt),
          ),
        )
        .orderBy(sql`lower(${workspaces.name})`, asc(workspaces.name), asc(workspaces.createdAt));
    },

    /** A live workspace of the organization, or null (deleted and other tenants' look alike). */
    get(orgId: string, uuid: string) {
      return liveWorkspace(db, orgId, uuid);
    },
  };
}

/** Creating, renaming, deleting and restoring workspaces, each with its audit row. */
function workspaceChanges(db: Db) {
  return {
    createWorkspace(orgId: string, name: string, actor: Actor): Promise<WorkspaceRow> {
      return db.transaction(async (tx) => {
        await lockOrganization(tx, orgId);
        await assertNameFree(tx, orgId, name);
        const [row] = await tx
          .insert(workspaces)
          .values({ organizationUuid: orgId, name })
          .returning({ uuid: workspaces.workspaceUuid });
        if (!row) throw new Error("workspace insert returned nothing");
        await writeAudit(tx, {
          organizationUuid: orgId,
          actor,
          action: "workspace.created",
          target: { type: "workspace", id: row.uuid, label: name },
          after: { name },
        });
        return (await liveWorkspace(tx, orgId, row.uuid)) as WorkspaceRow;
      });
    },

    /** Renames a live workspace; null when there is none. An unchanged name changes nothing. */
    renameWorkspace(orgId: string, uuid: string, name: string, actor: Actor): Promise<WorkspaceRow | null> {
      return db.transaction(async (tx) => {
        await lockOrganization(tx, orgId);
        const current = await liveWorkspace(tx, orgId, uuid);
        if (!current) return null;
        if (current.name === name) return current;
        await assertNameFree(tx, orgId, name, uuid);
        await changeWorkspace(tx, { orgId, uuid, actor, label: name }, { name }, "workspace.renamed", {
          before: { name: current.name },
          after: { name },
        });
        return { ...current, name };
      });
    },

    /** Soft delete: hidden from every call at once; members and usage history are kept. */
    deleteWorkspace(orgId: string, uuid: string, actor: Actor): Promise<boolean> {
      return db.transaction(async (tx) => {
        await lockOrganization(tx, orgId);
        const current = await liveWorkspace(tx, orgId, uuid);
        if (!current) return false;
        await changeWorkspace(
          tx,
          { orgId, uuid, actor, label: current.name },
          { deletedAt: new Date() },
          "workspace.deleted",
          { before: { name: current.name, deleted_at: null } },
        );
        return true;
      });
    },

    /** Brings a deleted workspace back (operators only), unless its name was taken meanwhile. */
    restoreWorkspace(uuid: string, actor: Actor): Promise<RestoreResult> {
      return db.transaction(async (tx) => {
        const [found] = await tx
          .select({ orgId: workspaces.organizationUuid })
          .from(workspaces)
          .where(eq(workspaces.workspaceUuid, uuid));
        if (!found) return { status: "not_found" };
        await lockOrganization(tx, found.orgId);
        const [row] = await tx.select(columns).from(workspaces).where(eq(workspaces.workspaceUuid, uuid));
        if (!row) return { status: "not_found" };
        if (!row.deletedAt) return { status: "not_deleted" };
        try {
          await assertNameFree(tx, row.organizationUuid, row.name);
        } catch {
          return { status: "conflict", name: row.name };
        }
        await changeWorkspace(
          tx,
          { orgId: row.organizationUuid, uuid, actor, label: row.name },
          { deletedAt: null },
          "workspace.restored",
          {
            before: { name: row.name, deleted_at: row.deletedAt.toISOString() },
            after: { name: row.name, deleted_at: null },
          },
        );
        return { status: "restored", workspace: { ...row, deletedAt: null } };
      });
    },
  };
}

/** Workspace members, and the user's choice of current workspace, each change audited. */
function workspaceMembership(db: Db) {
  return {
    /** Whether the user is a member of the organization's live workspace. */
    async isMember(orgId: string, uuid: string, userId: string): Promise<boolean> {
      const [row] = await db
        .select({ uuid: workspaceMembers.workspaceUuid })
        .from(workspaceMembers)
        .innerJoin(workspaces, eq(workspaceMembers.workspaceUuid, workspaces.workspaceUuid))
        .where(
          and(
            eq(workspaceMembers.workspaceUuid, uuid),
            eq(workspaceMembers.userId, userId),
            liveWorkspacesOf(orgId),
          ),
        )
        .limit(1);
      return row !== undefined;
    },

    /** Members of a live workspace in email order; null when there is no such workspace. */
    async listMembers(orgId: string, uuid: string): Promise<MemberRow[] | null> {
      if (!(await liveWorkspace(db, orgId, uuid))) return null;
      return db
        .select({
          email: workspaceMembers.email,
          user_id: workspaceMembers.userId,
          role: workspaceMembers.role,
        })
        .from(workspaceMembers)
        .where(eq(workspaceMembers.workspaceUuid, uuid))
        .orderBy(asc(workspaceMembers.email));
    },

    /** Adds an organization user; null when the workspace is gone, 409 when already a member. */
    addWorkspaceMember(
      orgId: string,
      uuid: string,
      user: { id: string; email: string },
      actor: Actor,
    ): Promise<MemberRow | null> {
      return db.transaction(async (tx) => {
        await lockOrganization(tx, orgId);
        if (!(await liveWorkspace(tx, orgId, uuid))) return null;
        const [row] = await tx
          .insert(workspaceMembers)
          .values({ workspaceUuid: uuid, userId: user.id, email: user.email })
          .onConflictDoNothing()
          .returning({
            email: workspaceMembers.email,
            user_id: workspaceMembers.userId,
            role: workspaceMembers.role,
          });
        if (!row) throw new DomainError(`${user.email} is already a member of this workspace.`, "conflict");
        await writeAudit(tx, {
          organizationUuid: orgId,
          actor,
          action: "member.added",
          target: { type: "workspace_member", id: user.id, label: user.email },
          after: { workspace_uuid: uuid, role: row.role },
        });
        return row;
      });
    },

    removeWorkspaceMember(
      orgId: string,
      uuid: string,
      email: string,
      actor: Actor,
    ): Promise<"removed" | "no_workspace" | "no_member"> {
      return db.transaction(async (tx) => {
        await lockOrganization(tx, orgId);
        if (!(await liveWorkspace(tx, orgId, uuid))) return "no_workspace";
        const removed = await tx
          .delete(workspaceMembers)
          .where(
            and(eq(workspaceMembers.workspaceUuid, uuid), sql`lower(${workspaceMembers.email}) = ${email}`),
          )
          .returning({ userId: workspaceMembers.userId, email: workspaceMembers.email });
        if (removed.length === 0) return "no_member";
        for (const m of removed) {
          await tx
            .delete(currentWorkspace)
            .where(and(eq(currentWorkspace.userId, m.userId), eq(currentWorkspace.workspaceUuid, uuid)));
          await writeAudit(tx, {
            organizationUuid: orgId,
            actor,
            action: "member.removed",
            target: { type: "workspace_member", id: m.userId, label: m.email },
            before: { workspace_uuid: uuid },
          });
        }
        return "removed";
      });
    },

    /** Makes one of the user's own live workspaces their current one; null when it is not theirs. */
    chooseCurrent(orgId: string, userId: string, uuid: string, actor: Actor): Promise<WorkspaceRow | null> {
      return db.transaction(async (tx) => {
        await lockOrganization(tx, orgId);
        const ws = await liveWorkspace(tx, orgId, uuid);
        if (!ws) return null;
        const [membership] = await tx
          .select({ userId: workspaceMembers.userId })
          .from(workspaceMembers)
          .where(and(eq(workspaceMembers.workspaceUuid, uuid), eq(workspaceMembers.userId, userId)));
        if (!membership) return null;
        await tx
          .insert(currentWorkspace)
          .values({ userId, organizationUuid: orgId, workspaceUuid: uuid })
          .onConflictDoUpdate({
            target: [currentWorkspace.userId, currentWorkspace.organizationUuid],
            set: { workspaceUuid: uuid, updatedAt: new Date() },
          });
        await writeAudit(tx, {
          organizationUuid: orgId,
          actor,
          action: "workspace.current_selected",
          target: { type: "workspace", id: uuid, label: ws.name },
          after: { user_id: userId },
        });
        return ws;
      });
    },
  };
}

/** The demo seed's writes: no actor, so no audit rows. */
function seedWrites(db: Db) {
  return {
    async create(orgId: string, name: string) {
      const [row] = await db.insert(workspaces).values({ organizationUuid: orgId, name }).returning();
      if (!row) throw new Error("workspace insert returned nothing");
      return row;
    },

    async addMember(workspaceUuid: string, user: { id: string; email: string }, role = "Member") {
      await db
        .insert(workspaceMembers)
        .values({ workspaceUuid, userId: user.id, email: user.email, role })
        .onConflictDoNothing();
    },

    async findByName(orgId: string, name: string) {
      const [row] = await db
        .select()
        .from(workspaces)
        .where(and(liveWorkspacesOf(orgId), eq(workspaces.name, name)));
      return row ?? null;
    },

    async countInOrg(orgId: string) {
      const rows = await db
        .select({ id: workspaces.workspaceUuid })
        .from(workspaces)
        .where(eq(workspaces.organizationUuid, orgId));
      return rows.length;
    },
  };
}

/**
 * Workspaces of one organization. Deleted workspaces (deleted_at set) are invisible to every
 * call except a listing that asks for them; every change writes its audit row in its transaction.
 */
export function createWorkspaceStore(db: Db) {
  return { ...workspaceReads(db), ...workspaceChanges(db), ...workspaceMembership(db), ...seedWrites(db) };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;
