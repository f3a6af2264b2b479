import { randomBytes, randomUUID } from "node:crypto";
import { and, eq, like, notInArray } from "drizzle-orm";
import { roleToStored } from "../../../contract/role-hierarchy";
import { member, organization } from "../../db/schema";
import { writeAudit } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { startingWith } from "../../platform/like-pattern";
import { announceChange, announceTokenRevocation, notifyChange } from "../../platform/token-revocation";
import { IdentityError } from "../errors";
import { canSetupSaml } from "../saml/policy";
import { bumpTokenVersions } from "../session/token-version";
import {
  type Actor,
  auditActor,
  maxUsersOf,
  membershipCount,
  type OrgAccess,
  type Queryable,
  requireConfirmedEmail,
  seatsTaken,
} from "./access";
import { emailDomain, isPersonalDomain } from "./domain";
import { MAX_ORGS_PER_USER } from "./limits";

// Creating, configuring, deleting and joining organizations (PropelAuth semantics).

/** PropelAuth's url_safe_org_name rule (lower case, spaces to dashes), made unique. */
async function uniqueSlug(tx: Queryable, name: string) {
  const base = name.toLowerCase().replace(/ /g, "-");
  const rows = await tx
    .select({ slug: organization.slug })
    .from(organization)
    .where(like(organization.slug, startingWith(base)));
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let i = 2; i < 100; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
  return `${base}-${randomBytes(4).toString("hex")}`;
}

/** The domain an organization gets from its creator's email, refused when it is a personal one. */
function orgDomainFor(actor: Actor, wantsDomainRules: boolean): string | null {
  const domain = emailDomain(actor.email);
  if (!isPersonalDomain(domain)) return domain;
  if (wantsDomainRules) throw new IdentityError("personal_domain_error");
  return null;
}

export async function createOrg(
  db: Db,
  actor: Actor,
  input: { name: string; autojoin_by_domain: boolean; restrict_to_domain: boolean },
) {
  requireConfirmedEmail(actor);
  const domain = orgDomainFor(actor, input.autojoin_by_domain || input.restrict_to_domain);
  return db.transaction(async (tx) => {
    const existing = await membershipCount(tx, actor.id);
    if (existing >= MAX_ORGS_PER_USER) throw new IdentityError("user_max_orgs_limit_exceeded");
    const id = randomUUID();
    await tx.insert(organization).values({
      id,
      name: input.name,
      slug: await uniqueSlug(tx, input.name),
      domain,
      autojoinByDomain: input.autojoin_by_domain,
      restrictToDomain: input.restrict_to_domain,
    });
    await tx
      .insert(member)
      .values({ id: randomUUID(), organizationId: id, userId: actor.id, role: roleToStored("Owner") });
    return { org_id: id, first_org: existing === 0 };
  });
}

export async function deleteOrg(db: Db, access: OrgAccess) {
  // Members, invitations and the organization's API keys go with it (foreign keys cascade); the
  // members' access tokens, which name the organization, stop counting.
  const members = await db.transaction(async (tx) => {
    const rows = await tx
      .select({ userId: member.userId })
      .from(member)
      .where(eq(member.organizationId, access.org.id));
    const ids = rows.map((r) => r.userId);
    await bumpTokenVersions(tx, ids);
    // The entry outlives the organization: the audit log is append-only and keeps no foreign key.
    await writeAudit(tx, {
      organizationUuid: access.org.id,
      actor: auditActor(access),
      action: "organization.deleted",
      target: { type: "organization", id: access.org.id, label: access.org.name },
      before: { name: access.org.name, domain: access.org.domain, members: ids.length },
    });
    await tx.delete(organization).where(eq(organization.id, access.org.id));
    return ids;
  });
  announceTokenRevocation(db, members);
}

export function orgSettings(access: OrgAccess, saml: { enabled: boolean } = { enabled: false }) {
  const { org } = access;
  const domain = emailDomain(access.email);
  const canUpdate = access.permissions.has("propelauth::can_update_org_metadata");
  return {
    org_name: org.name,
    user_can_update_org_settings: canUpdate,
    user_can_update_metadata: canUpdate,
    autojoin_by_domain: org.autojoinByDomain,
    restrict_to_domain: org.restrictToDomain,
    require_2fa_by: org.require2faBy ? org.require2faBy.toISOString() : null,
    existing_domain: org.domain,
    current_user_domain: domain,
    current_user_domain_is_personal: isPersonalDomain(domain),
    can_setup_saml: canSetupSaml(access),
    is_saml_enabled: saml.enabled,
    is_saml_in_test_mode: false,
    // SCIM is not available in this build.
    can_setup_scim: false,
    is_scim_enabled: false,
  };
}

export async function updateOrg(
  db: Db,
  access: OrgAccess,
  actor: Actor,
  input: {
    name?: string;
    autojoin_by_domain?: boolean;
    restrict_to_domain?: boolean;
    require_2fa_by?: string | null;
  },
) {
  const set: Partial<typeof organization.$inferInsert> = {};
  if (input.name !== undefined) {
    set.name = input.name;
    if (input.name !== access.org.name) set.slug = await uniqueSlug(db, input.name);
  }
  if (input.autojoin_by_domain !== undefined) set.autojoinByDomain = input.autojoin_by_domain;
  if (input.restrict_to_domain !== undefined) set.restrictToDomain = input.restrict_to_domain;
  if (input.require_2fa_by !== undefined)
    set.require2faBy = input.require_2fa_by === null ? null : new Date(input.require_2fa_by);
  // Domain rules need a domain: an organization without one takes the updater's (never a personal one).
  if ((set.autojoinByDomain || set.restrictToDomain) && !access.org.domain)
    set.domain = orgDomainFor(actor, true);
  if (Object.keys(set).length === 0) return;
  const was = access.org as Record<string, unknown>;
  const changed = Object.keys(set).filter((k) => k !== "slug");
  await db.transaction(async (tx) => {
    await tx.update(organization).set(set).where(eq(organization.id, access.org.id));
    await writeAudit(tx, {
      organizationUuid: access.org.id,
      actor: auditActor(access),
      action: "organization.settings_changed",
      target: { type: "organization", id: access.org.id, label: set.name ?? access.org.name },
      before: Object.fromEntries(changed.map((k) => [k, was[k] ?? null])),
      after: Object.fromEntries(changed.map((k) => [k, (set as Record<string, unknown>)[k] ?? null])),
    });
    // The product API caches organization names (with their workspaces): other processes hear of
    // a rename through NOTIFY at the commit, this one right after it.
    if (set.name !== undefined) await notifyChange(tx, "org", access.org.id);
  });
  if (set.name !== undefined) announceChange(db, "org", access.org.id);
}

/** Organizations the user may join by their confirmed email's domain. */
export async function joinableOrgs(db: Db, actor: Actor) {
  if (!actor.emailVerified) return { orgs: [] };
  const domain = emailDomain(actor.email);
  if (!domain || isPersonalDomain(domain)) return { orgs: [] };
  const mine = db.select({ id: member.organizationId }).from(member).where(eq(member.userId, actor.id));
  const rows = await db
    .select({ id: organization.id, name: organization.name })
    .from(organization)
    .where(
      and(
        eq(organization.autojoinByDomain, true),
        eq(organization.domain, domain),
        notInArray(organization.id, mine),
      ),
    )
    .orderBy(organization.name)
    .limit(100);
  return { orgs: rows };
}

export async function joinOrg(db: Db, actor: Actor, orgId: string) {
  requireConfirmedEmail(actor);
  const domain = emailDomain(actor.email);
  return db.transaction(async (tx) => {
    const [org] = await tx.select().from(organization).where(eq(organization.id, orgId)).limit(1);
    // An organization that isn't open to this domain is reported as not found.
    if (!org?.autojoinByDomain || !org.domain || org.domain !== domain || isPersonalDomain(domain))
      throw new IdentityError("org_not_found");
    const existing = await membershipCount(tx, actor.id);
    const [already] = await tx
      .select({ id: member.id })
      .from(member)
      .where(and(eq(member.organizationId, orgId), eq(member.userId, actor.id)));
    if (already) return { org_id: orgId, first_org: false };
    if (existing >= MAX_ORGS_PER_USER) throw new IdentityError("user_max_orgs_limit_exceeded");
    if ((await seatsTaken(tx, orgId, { excludeEmail: actor.email })) >= maxUsersOf(org))
      throw new IdentityError("org_max_users_limit_exceeded");
    await tx
      .insert(member)
      .values({ id: randomUUID(), organizationId: orgId, userId: actor.id, role: roleToStored("Member") });
    await writeAudit(tx, {
      organizationUuid: orgId,
      actor: auditActor(actor),
      action: "org_user.joined_by_domain",
      target: { type: "org_user", id: actor.id, label: actor.email },
      after: { role: "Member", domain },
    });
    return { org_id: orgId, first_org: existing === 0 };
  });
}
