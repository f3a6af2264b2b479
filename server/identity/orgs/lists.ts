import { and, asc, count, eq, gt, ilike, lte, type SQL, sql } from "drizzle-orm";
import { invitation, member, session, user } from "../../db/schema";
import type { Db } from "../../platform/database";
import { containing } from "../../platform/like-pattern";
import { readPage } from "../../platform/paged-list";
import type { OrgAccess } from "./access";
import { assignableRoles, mayHandle, readRoles } from "./roles";

// The paged lists of the org_membership calls, as SQL: better-auth lists neither with paging nor
// with an email search, and it does not tell pending invitations from expired ones.

export type Page = { pageNumber: number; pageSize: number; offset: number };

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
/** `email_search` matches anywhere in the address; LIKE wildcards in it are taken literally. */

function pageOf<T>(items: T[], total: number, page: Page) {
  return {
    total_count: total,
    page_number: page.pageNumber,
    page_size: page.pageSize,
    has_more_results: page.offset + items.length < total,
  };
}

/**
 * When a member last used the service: their latest session activity, or (signed out everywhere,
 * so no session is left) the last change to their account, as the token's last_active_at does.
 * The columns are spelled out with their tables: drizzle leaves a one-table select's columns
 * unqualified, and inside the subquery an unqualified `id` would be the session's own, silently.
 */
const lastActiveAt =
  sql<Date>`coalesce((select max(s.updated_at) from ${session} s where s.user_id = "user"."id"), "user"."updated_at")`.mapWith(
    session.updatedAt,
  );

export async function listMembers(db: Db, access: OrgAccess, page: Page, search?: string) {
  const where: SQL[] = [eq(member.organizationId, access.org.id)];
  if (search) where.push(ilike(user.email, containing(search.toLowerCase())));
  const cond = and(...where);
  const { rows, total } = await readPage(
    db
      .select({
        id: user.id,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        lastActiveAt,
        role: member.role,
        banned: user.banned,
        mfa: user.twoFactorEnabled,
      })
      .from(member)
      .innerJoin(user, eq(member.userId, user.id))
      .where(cond)
      .orderBy(asc(user.email))
      .$dynamic(),
    db
      .select({ n: count() })
      .from(member)
      .innerJoin(user, eq(member.userId, user.id))
      .where(cond)
      .then(([r]) => r?.n ?? 0),
    { limit: page.pageSize, offset: page.offset },
  );
  const canChange = access.permissions.has("propelauth::can_change_roles");
  const canRemove = access.permissions.has("propelauth::can_remove_users");
  const users = rows.map((r) => {
    const roles = readRoles(r.role);
    const above = !mayHandle(access.roles, roles);
    return {
      user_id: r.id,
      email: r.email,
      // Beyond PropelAuth's member fields: what the console's Users page shows.
      first_name: r.firstName,
      last_name: r.lastName,
      last_active_at: epoch(r.lastActiveAt),
      role: roles.role,
      additional_roles: roles.additional,
      possible_roles: canChange && !above ? assignableRoles(access.roles) : [],
      can_be_deleted: canRemove && !above && r.id !== access.userId,
      is_enabled: !r.banned,
      is_2fa_enabled: r.mfa,
    };
  });
  return { users, ...pageOf(users, total, page) };
}

export async function listInvites(
  db: Db,
  orgId: string,
  kind: "pending" | "expired",
  page: Page,
  search?: string,
) {
  const now = new Date();
  const where: SQL[] = [
    eq(invitation.organizationId, orgId),
    eq(invitation.status, "pending"),
    kind === "pending" ? gt(invitation.expiresAt, now) : lte(invitation.expiresAt, now),
  ];
  if (search) where.push(ilike(invitation.email, containing(search.toLowerCase())));
  const cond = and(...where);
  const { rows, total } = await readPage(
    db
      .select({ email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt })
      .from(invitation)
      .where(cond)
      .orderBy(asc(invitation.email), asc(invitation.createdAt))
      .$dynamic(),
    db.$count(invitation, cond),
    { limit: page.pageSize, offset: page.offset },
  );
  const invites = rows.map((r) => {
    const roles = readRoles(r.role ?? "member");
    return {
      email: r.email,
      role: roles.role,
      additional_roles: roles.additional,
      expires_at_seconds: epoch(r.expiresAt),
    };
  });
  return { invites, ...pageOf(invites, total, page) };
}
