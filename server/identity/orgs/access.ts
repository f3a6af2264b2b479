import { and, count, eq, gt } from "drizzle-orm";
import { invitation, member, organization } from "../../db/schema";
import type { Actor as AuditActor } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { IdentityError } from "../errors";
import type { SessionUser } from "../fe/plumbing";
import { DEFAULT_MAX_USERS } from "./limits";
import {
  type MemberRoles,
  permissionsOfRoles,
  type RoleStructure,
  readRoles,
  roleStructureOf,
} from "./roles";

export type OrgRow = typeof organization.$inferSelect;
export type Queryable = Db | Tx;

/** The signed-in user acting in one organization they belong to. */
export type OrgAccess = {
  org: OrgRow;
  structure: RoleStructure;
  userId: string;
  email: string;
  roles: MemberRoles;
  permissions: Set<string>;
  /** The provider operator behind the session, when it is an impersonation (for the audit log). */
  impersonatorId: string | null;
};

export type Actor = {
  id: string;
  email: string;
  emailVerified: boolean;
  /** The provider operator behind an impersonation session, for the audit log. */
  impersonatorId?: string | null;
};

export const actorOf = (s: SessionUser): Actor => ({
  id: s.user.id,
  email: s.user.email.toLowerCase(),
  emailVerified: s.user.emailVerified,
  impersonatorId: (s.session as { impersonatedBy?: string | null }).impersonatedBy ?? null,
});

/** The signed-in user as the audit log's actor: identity is reached from the console's pages and calls. */
export const auditActor = (a: {
  id?: string;
  userId?: string;
  email: string;
  impersonatorId?: string | null;
}): AuditActor => ({
  userId: a.id ?? a.userId ?? null,
  email: a.email,
  source: "console",
  impersonatorUserId: a.impersonatorId ?? null,
});

/**
 * The actor's membership in `orgId`. An organization the actor doesn't belong to answers
 * org_not_found, exactly like one that doesn't exist, so nothing leaks across organizations.
 */
export async function orgAccess(db: Queryable, actor: Actor, orgId: string): Promise<OrgAccess> {
  const [row] = await db
    .select({ org: organization, role: member.role })
    .from(member)
    .innerJoin(organization, eq(member.organizationId, organization.id))
    .where(and(eq(member.organizationId, orgId), eq(member.userId, actor.id)))
    .limit(1);
  if (!row) throw new IdentityError("org_not_found");
  const structure = roleStructureOf(row.org.roleStructure);
  const roles = readRoles(row.role);
  return {
    org: row.org,
    structure,
    userId: actor.id,
    email: actor.email,
    roles,
    permissions: new Set(permissionsOfRoles(structure, roles)),
    impersonatorId: actor.impersonatorId ?? null,
  };
}

/** The actor's membership in `orgId`, refused with action_forbidden unless it grants `permission`. */
export async function permittedOrgAccess(
  db: Queryable,
  actor: Actor,
  orgId: string,
  permission: string,
): Promise<OrgAccess> {
  const access = await orgAccess(db, actor, orgId);
  requirePermission(access, permission);
  return access;
}

export function requirePermission(access: OrgAccess, permission: string) {
  if (!access.permissions.has(permission))
    throw new IdentityError("action_forbidden", "You don't have permission to do that in this organization.");
}

export function requireConfirmedEmail(actor: Actor) {
  if (!actor.emailVerified) throw new IdentityError("email_not_confirmed");
}

export const maxUsersOf = (org: OrgRow) => org.maxUsers ?? DEFAULT_MAX_USERS;

/** Members plus invitations still open: both hold a seat. */
export async function seatsTaken(db: Queryable, orgId: string, opts: { excludeEmail?: string } = {}) {
  const [m] = await db.select({ n: count() }).from(member).where(eq(member.organizationId, orgId));
  const open = and(
    eq(invitation.organizationId, orgId),
    eq(invitation.status, "pending"),
    gt(invitation.expiresAt, new Date()),
  );
  const rows = await db.select({ email: invitation.email }).from(invitation).where(open);
  const invites = rows.filter((r) => r.email.toLowerCase() !== opts.excludeEmail).length;
  return (m?.n ?? 0) + invites;
}

export async function membershipCount(db: Queryable, userId: string) {
  const [m] = await db.select({ n: count() }).from(member).where(eq(member.userId, userId));
  return m?.n ?? 0;
}
