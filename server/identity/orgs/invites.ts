import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { invitation, member, organization, user } from "../../db/schema";
import { writeAudit } from "../../platform/audit";
import { hashToken } from "../better-auth/hashed-tokens";
import type { IdentityContext } from "../context";
import { invitationEmail } from "../email/templates";
import { IdentityError } from "../errors";
import {
  type Actor,
  auditActor,
  maxUsersOf,
  type OrgAccess,
  requireConfirmedEmail,
  requirePermission,
  seatsTaken,
} from "./access";
import { emailDomain } from "./domain";
import { INVITATION_TTL_SECONDS, INVITES_PER_ORG, inviteLimitKey } from "./limits";
import { type MemberRoles, mayHandle, readRoles, storeRoles } from "./roles";

// Invitations are our own rows in better-auth's invitation table (status pending → accepted or
// canceled; an expired one stays pending with expiresAt in the past), so every rule below is
// checked before anything is written and the email links to our hosted /accept_invite page.

export async function inviteUser(
  ctx: IdentityContext,
  access: OrgAccess,
  actor: Actor,
  email: string,
  roles: MemberRoles,
) {
  requireConfirmedEmail(actor);
  requirePermission(access, "propelauth::can_invite");
  const { org } = access;
  if (org.restrictToDomain && org.domain && emailDomain(email) !== org.domain)
    throw new IdentityError(
      "domain_not_allowed",
      `Only ${org.domain} addresses can be invited to this organization.`,
    );
  const [already] = await ctx.db
    .select({ id: member.id })
    .from(member)
    .innerJoin(user, eq(member.userId, user.id))
    .where(and(eq(member.organizationId, org.id), eq(user.email, email)))
    .limit(1);
  if (already)
    throw new IdentityError("action_already_complete", "This user is already a member of the organization.");
  // A new invitation for the same email replaces the old one, so it doesn't take a second seat.
  if ((await seatsTaken(ctx.db, org.id, { excludeEmail: email })) >= maxUsersOf(org))
    throw new IdentityError("org_max_users_limit_exceeded");
  const hit = await ctx.limiter.hit(inviteLimitKey(org.id), INVITES_PER_ORG);
  if (!hit.allowed)
    throw new IdentityError(
      "rate_limit_exceeded",
      "Too many invitations were sent. Please try again later.",
      {
        retry_after_seconds: String(hit.resetSeconds),
      },
    );
  // The link carries a random id; the row keeps only its SHA-256, so reading the table gives
  // nobody a working invitation link.
  const linkId = randomUUID();
  const id = hashToken(linkId);
  const expiresAt = new Date(Date.now() + INVITATION_TTL_SECONDS * 1000);
  // The invitation's id is a digest of its link: the audit row names the invited email instead.
  const target = { type: "invitation", id: email, label: email } as const;
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(invitation)
      .set({ status: "canceled" })
      .where(
        and(
          eq(invitation.organizationId, org.id),
          eq(invitation.email, email),
          eq(invitation.status, "pending"),
        ),
      );
    await tx.insert(invitation).values({
      id,
      organizationId: org.id,
      email,
      role: storeRoles(roles),
      status: "pending",
      expiresAt,
      inviterId: actor.id,
    });
    await writeAudit(tx, {
      organizationUuid: org.id,
      actor: auditActor(actor),
      action: "invitation.created",
      target,
      after: { email, role: roles.role, additional_roles: roles.additional, expires_at: expiresAt },
    });
  });
  try {
    await ctx.mailer.send(invitationEmail(ctx.config.authPublicUrl, email, linkId, org.name, actor.email));
  } catch (err) {
    // An invitation nobody was told about must not hold a seat or show as pending; the log,
    // which already has it created, says it was withdrawn and why.
    await ctx.db.transaction(async (tx) => {
      await tx.update(invitation).set({ status: "canceled" }).where(eq(invitation.id, id));
      await writeAudit(tx, {
        organizationUuid: org.id,
        actor: auditActor(actor),
        action: "invitation.revoked",
        target,
        before: { email, role: roles.role },
        after: { reason: "the invitation email could not be sent" },
      });
    });
    throw err;
  }
}

/** Revokes the open (or expired) invitation of `email`; invitations to a role above yours stay. */
export async function revokeInvite(ctx: IdentityContext, access: OrgAccess, email: string) {
  requirePermission(access, "propelauth::can_invite");
  const open = and(
    eq(invitation.organizationId, access.org.id),
    eq(invitation.email, email),
    eq(invitation.status, "pending"),
  );
  const rows = await ctx.db.select({ id: invitation.id, role: invitation.role }).from(invitation).where(open);
  if (rows.length === 0)
    throw new IdentityError("invalid_request_fields", "There is no open invitation for this email.", {
      email: "There is no open invitation for this email.",
    });
  if (rows.some((r) => !mayHandle(access.roles, readRoles(r.role ?? "member"))))
    throw new IdentityError("action_forbidden", "You can't revoke an invitation to a role above your own.");
  await ctx.db.transaction(async (tx) => {
    await tx.update(invitation).set({ status: "canceled" }).where(open);
    await writeAudit(tx, {
      organizationUuid: access.org.id,
      actor: auditActor(access),
      action: "invitation.revoked",
      target: { type: "invitation", id: email, label: email },
      before: { email, role: readRoles(rows[0]?.role ?? "member").role },
    });
  });
}

export type InvitationView = {
  id: string;
  email: string;
  orgId: string;
  orgName: string;
  role: string;
  state: "open" | "expired" | "closed";
};

/**
 * The rows an invitation link's id may name: the digest (invitations are stored hashed) or, for
 * invitations sent before that, the id itself. A link id is a UUID, a digest 64 hex digits, so
 * a digest read from the table is never accepted as a link.
 */
const storedIds = (linkId: string) => inArray(invitation.id, [hashToken(linkId), linkId]);

export async function findInvitation(ctx: IdentityContext, id: string): Promise<InvitationView | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await ctx.db
    .select({ inv: invitation, orgName: organization.name })
    .from(invitation)
    .innerJoin(organization, eq(invitation.organizationId, organization.id))
    .where(storedIds(id))
    .limit(1);
  if (!row) return null;
  const { inv } = row;
  const state = inv.status !== "pending" ? "closed" : inv.expiresAt <= new Date() ? "expired" : "open";
  const role = readRoles(inv.role ?? "member");
  return {
    id,
    email: inv.email,
    orgId: inv.organizationId,
    orgName: row.orgName,
    role: role.role,
    state,
  };
}

/**
 * The signed-in user accepts an invitation sent to their own address. Opening the link proves
 * the mailbox, so the email counts as confirmed from then on.
 */
export async function acceptInvite(ctx: IdentityContext, actor: Actor, id: string) {
  return ctx.db.transaction(async (tx) => {
    if (!/^[0-9a-f-]{36}$/i.test(id))
      throw new IdentityError("not_found", "This invitation is no longer valid.");
    const [inv] = await tx.select().from(invitation).where(storedIds(id)).for("update").limit(1);
    if (inv?.status !== "pending" || inv.expiresAt <= new Date())
      throw new IdentityError("not_found", "This invitation is no longer valid.");
    if (inv.email.toLowerCase() !== actor.email)
      throw new IdentityError("action_forbidden", `This invitation was sent to ${inv.email}.`);
    const [org] = await tx.select().from(organization).where(eq(organization.id, inv.organizationId));
    if (!org) throw new IdentityError("org_not_found");
    const [already] = await tx
      .select({ id: member.id })
      .from(member)
      .where(and(eq(member.organizationId, org.id), eq(member.userId, actor.id)));
    if (!already) {
      // This invitation already holds its seat; only members count against the limit here.
      const [n] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(member)
        .where(eq(member.organizationId, org.id));
      if ((n?.n ?? 0) >= maxUsersOf(org)) throw new IdentityError("org_max_users_limit_exceeded");
      await tx
        .insert(member)
        .values({ id: randomUUID(), organizationId: org.id, userId: actor.id, role: inv.role ?? "member" });
      const roles = readRoles(inv.role ?? "member");
      await writeAudit(tx, {
        organizationUuid: org.id,
        actor: auditActor(actor),
        action: "invitation.accepted",
        target: { type: "org_user", id: actor.id, label: actor.email },
        after: { role: roles.role, additional_roles: roles.additional },
      });
    }
    await tx.update(invitation).set({ status: "accepted" }).where(eq(invitation.id, inv.id));
    await tx.update(user).set({ emailVerified: true, updatedAt: new Date() }).where(eq(user.id, actor.id));
    return { orgId: org.id, orgName: org.name };
  });
}
