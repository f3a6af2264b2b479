import { importPKCS8, SignJWT } from "jose";
import type { RoleName } from "../../../contract/role-hierarchy";
import { permissionsOfRoles, type RoleStructure, rolesHeld } from "../orgs/roles";
import type { SigningKeys } from "../settings";

export type OrgMembership = {
  orgId: string;
  orgName: string;
  slug: string;
  metadata: string | null;
  /** Defaults to single_role_in_hierarchy. */
  roleStructure?: RoleStructure;
  role: RoleName;
  additionalRoles: RoleName[];
};

export type IdentityUser = {
  id: string;
  email: string;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
  image: string | null;
  hasPassword: boolean;
  username: string | null;
  mfaEnabled: boolean;
  disabled: boolean;
  createdAt: Date;
  lastActiveAt: Date;
  /** identity.user.token_version: access tokens carry it as `tv` (see token-version.ts). */
  tokenVersion: number;
};

/** A stored JSON object column, or {} when it is empty or not an object. */
export function parseMetadata(raw: string | null): Record<string, unknown> {
  if (!raw) return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** PropelAuth's OrgMemberInfo, every field present (some SDKs require all of them). */
export function orgMemberInfo(m: OrgMembership) {
  const structure = m.roleStructure ?? "single_role_in_hierarchy";
  const roles = { role: m.role, additional: m.additionalRoles };
  return {
    org_id: m.orgId,
    org_name: m.orgName,
    org_metadata: parseMetadata(m.metadata),
    url_safe_org_name: m.slug,
    org_role_structure: structure,
    user_role: m.role,
    // In multi_role there is no hierarchy: the roles held are the assigned and additional ones.
    inherited_user_roles_plus_current_role: rolesHeld(structure, roles),
    user_permissions: permissionsOfRoles(structure, roles),
    additional_roles: m.additionalRoles,
  };
}

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

export function userInfo(u: IdentityUser) {
  return {
    user_id: u.id,
    email: u.email,
    email_confirmed: u.emailVerified,
    has_password: u.hasPassword,
    // Spec §3: every listed field is sent; null when unknown (PropelAuth clients read them all).
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    username: u.username ?? null,
    picture_url: u.image ?? null,
    locked: false,
    enabled: !u.disabled,
    mfa_enabled: u.mfaEnabled,
    can_create_orgs: true,
    created_at: epoch(u.createdAt),
    last_active_at: epoch(u.lastActiveAt),
    // Accounts are never migrated from another system here.
    legacy_user_id: null,
    properties: {},
  };
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;

/** Signs RS256 access tokens in PropelAuth's claim layout and builds the refresh response. */
export function createTokenIssuer(keys: SigningKeys, issuer: string, ttlSeconds: number) {
  const privateKey = importPKCS8(keys.privatePem, "RS256");

  return {
    async authResponse(
      user: IdentityUser,
      memberships: OrgMembership[],
      opts: { activeOrgId?: string; impersonator?: { user_id: string; email: string } } = {},
    ) {
      const orgMap = Object.fromEntries(memberships.map((m) => [m.orgId, orgMemberInfo(m)]));
      const now = Math.floor(Date.now() / 1000);
      const exp = now + ttlSeconds;
      const orgClaim = opts.activeOrgId
        ? { org_member_info: orgMap[opts.activeOrgId] }
        : { org_id_to_org_member_info: orgMap };
      const claims = {
        user_id: user.id,
        email: user.email,
        ...(user.firstName ? { first_name: user.firstName } : {}),
        ...(user.lastName ? { last_name: user.lastName } : {}),
        ...orgClaim,
        login_method: { login_method: opts.impersonator ? "impersonation" : "password" },
        ...(opts.impersonator ? { impersonator_user_id: opts.impersonator.user_id } : {}),
        // The product API refuses the token once the user's version has moved past this.
        tv: user.tokenVersion,
      };
      const accessToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: keys.kid })
        .setIssuer(issuer)
        .setSubject(user.id)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .sign(await privateKey);
      return {
        access_token: accessToken,
        expires_at_seconds: exp,
        user: userInfo(user),
        org_id_to_org_member_info: orgMap,
        impersonator_user: opts.impersonator ?? null,
      };
    },
  };
}
