import { and, eq } from "drizzle-orm";
import { member, user } from "../../db/schema";
import { type Snapshot, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { announceTokenRevocation } from "../../platform/token-revocation";
import { IdentityError } from "../errors";
import { bumpTokenVersions } from "../session/token-version";
import { auditActor, type OrgAccess, type Queryable, requirePermission } from "./access";
import { holdsRole, type MemberRoles, mayHandle, readRoles, storeRoles } from "./roles";

// Changing a member's role and removing a member. Both run in one transaction with the checks,
// so the "at least one Owner" rule can't be raced past.

async function targetMember(tx: Queryable, orgId: string, userId: string) {
  const [row] = await tx
    .select({ id: member.id, role: member.role, email: user.email })
    .from(member)
    .innerJoin(user, eq(member.userId, user.id))
    .where(and(eq(member.organizationId, orgId), eq(member.userId, userId)))
    .limit(1);
  if (!row) throw new IdentityError("user_not_found", "This user is not a member of the organization.");
  return { id: row.id, userId, email: row.email, roles: readRoles(row.role) };
}

/** A member's roles as the audit log shows them. */
const rolesSnapshot = (r: MemberRoles) => ({ role: r.role, additional_roles: r.additional });

async function ownerCount(tx: Queryable, orgId: string) {
  const rows = await tx.select({ role: member.role }).from(member).where(eq(member.organizationId, orgId));
  return rows.filter((r) => holdsRole(readRoles(r.role), "Owner")).length;
}

const lastOwner = () =>
  new IdentityError("invalid_request_fields", "An organization must keep at least one Owner.", {
    org_id: "An organization must keep at least one Owner.",
  });

/**
 * After a member's roles changed or they left: the audit entry (their roles before, and `after`),
 * and the tokens minted before the change stop counting, since tokens carry the role.
 */
async function recordMemberChange(
  tx: Tx,
  access: OrgAccess,
  target: Awaited<ReturnType<typeof targetMember>>,
  action: "org_user.role_changed" | "org_user.removed",
  after: Snapshot | null,
) {
  await writeAudit(tx, {
    organizationUuid: access.org.id,
    actor: auditActor(access),
    action,
    target: { type: "org_user", id: target.userId, label: target.email },
    before: rolesSnapshot(target.roles),
    after,
  });
  await bumpTokenVersions(tx, [target.userId]);
}

export async function changeRole(db: Db, access: OrgAccess, userId: string, wanted: MemberRoles) {
  requirePermission(access, "propelauth::can_change_roles");
  await db.transaction(async (tx) => {
    const target = await targetMember(tx, access.org.id, userId);
    // An Admin can't demote (or otherwise touch) an Owner.
    if (!mayHandle(access.roles, target.roles))
      throw new IdentityError("action_forbidden", "You can't change the role of someone above you.");
    if (
      holdsRole(target.roles, "Owner") &&
      !holdsRole(wanted, "Owner") &&
      (await ownerCount(tx, access.org.id)) <= 1
    )
      throw lastOwner();
    await tx
      .update(member)
      .set({ role: storeRoles(wanted) })
      .where(eq(member.id, target.id));
    await recordMemberChange(tx, access, target, "org_user.role_changed", rolesSnapshot(wanted));
  });
  announceTokenRevocation(db, [userId]);
}

/** Removes a member; removing yourself is leaving, which needs no permission. */
export async function removeUser(db: Db, access: OrgAccess, userId: string) {
  const leaving = userId === access.userId;
  if (!leaving) requirePermission(access, "propelauth::can_remove_users");
  await db.transaction(async (tx) => {
    const target = await targetMember(tx, access.org.id, userId);
    if (!leaving && !mayHandle(access.roles, target.roles))
      throw new IdentityError("action_forbidden", "You can't remove someone above you.");
    if (holdsRole(target.roles, "Owner") && (await ownerCount(tx, access.org.id)) <= 1) throw lastOwner();
    await tx.delete(member).where(eq(member.id, target.id));
    await recordMemberChange(tx, access, target, "org_user.removed", leaving ? { left: true } : null);
  });
  announceTokenRevocation(db, [userId]);
}
