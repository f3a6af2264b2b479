import type { ApiKeyIdentity } from "../../platform/identity-gateway";
import type { ValidatedApiKey } from "../api-keys/service";
import { orgMemberInfo, parseMetadata, userInfo } from "../session/access-tokens";

// Response bodies of the backend API in PropelAuth's snake_case shapes, which the backend SDKs
// (node, py, rs) read. rs has no serde defaults, so every field it requires is always present.

/** PropelAuth's Org: py/rs read org_name, node's type reads name, so both are sent. */
export function orgShape(o: {
  id: string;
  name: string;
  slug: string;
  metadata: string | null;
  maxUsers: number | null;
}) {
  return {
    org_id: o.id,
    org_name: o.name,
    name: o.name,
    url_safe_org_name: o.slug,
    max_users: o.maxUsers,
    is_saml_configured: false,
    can_setup_saml: false,
    metadata: parseMetadata(o.metadata),
  };
}

/** The validate response: a personal key has user and no org; an org key adds org and user_in_org. */
export function validationResponse(v: ValidatedApiKey) {
  return {
    metadata: v.metadata,
    // Not in PropelAuth's shape (SDKs ignore it): lets a product API on another host record the key.
    api_key_id: v.apiKeyId,
    user: userInfo(v.user),
    user_id: v.user.id,
    ...(v.org && v.membership
      ? { org: orgShape(v.org), org_id: v.org.id, user_in_org: orgMemberInfo(v.membership) }
      : {}),
  };
}

/** What the product API needs from a validated key (see IdentityGateway.validateApiKey). */
export function keyIdentity(v: ValidatedApiKey): ApiKeyIdentity {
  const m = v.membership ?? v.memberships[0] ?? null;
  return {
    userId: v.user.id,
    email: v.user.email,
    org: m ? orgMemberInfo(m) : null,
    orgKey: v.membership !== null,
    apiKeyId: v.apiKeyId,
  };
}
