import { createPublicKey, type KeyObject } from "node:crypto";
import { isAtLeastRole } from "../../contract/role-hierarchy";
import { ApiError } from "./errors";
import type { IdentityGateway, OrganizationUser, OrgMemberInfo } from "./identity-gateway";

type HttpGatewayOptions = {
  /** Where the product API reaches the identity service (may be an internal address). */
  identityUrl: string;
  /** The identity service's BACKEND_API_KEY. */
  backendApiKey: string;
  /** `iss` of access tokens: the identity origin as browsers see it (default: identityUrl's origin). */
  issuer?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
};

/** The identity service could not answer: a 503 for the caller, the detail kept as `cause` for logs. */
class IdentityUnavailableError extends ApiError {
  constructor(detail: string) {
    super("identity_unavailable");
    this.cause = detail;
  }
}

const ROLES = new Set(["Owner", "Admin", "Member"]);
/** A role name from the backend API as ours; one we do not know counts as a member's. */
const roleOf = (name: string) => (ROLES.has(name) ? name : "Member") as OrganizationUser["role"];

/**
 * The identity gateway over HTTP, for a product API on a separate host: the verification key comes
 * from token_verification_metadata (fetched once, refetched after a failure), everything else from
 * the identity backend API with the backend key. Selected where the API is wired (e.g. when
 * IDENTITY_URL and BACKEND_API_KEY are set); the in-process gateway is the default.
 */
export function createHttpIdentityGateway(o: HttpGatewayOptions): IdentityGateway {
  const base = o.identityUrl.replace(/\/+$/, "");
  const doFetch = o.fetch ?? fetch;
  let key: Promise<KeyObject> | null = null;

  /** JSON of a 2xx response, null for a 404 (and for the listed "not ours" statuses). */
  async function call<T>(path: string, init: RequestInit = {}, nullOn = [404]): Promise<T | null> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${o.backendApiKey}`, "content-type": "application/json" },
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      });
    } catch (err) {
      throw new IdentityUnavailableError(`identity service unreachable: ${(err as Error).message}`);
    }
    if (nullOn.includes(res.status)) return null;
    if (!res.ok) throw new IdentityUnavailableError(`identity service answered ${res.status} for ${path}`);
    return (await res.json()) as T;
  }

  const enc = encodeURIComponent;

  async function listOrganizationUsers(orgId: string): Promise<OrganizationUser[]> {
    const r = await call<{ users: { user_id: string; email: string; role_in_org: string }[] }>(
      `/api/backend/v1/user/org/${enc(orgId)}`,
    );
    return (r?.users ?? []).map(
      (u): OrganizationUser => ({
        user_id: u.user_id,
        email: u.email,
        role: roleOf(u.role_in_org),
      }),
    );
  }

  return {
    issuer: new URL(o.issuer ?? base).origin,

    verificationKey() {
      key ??= call<{ verifier_key_pem: string }>("/api/v1/token_verification_metadata", {}, []).then((r) =>
        createPublicKey(r?.verifier_key_pem ?? ""),
      );
      // A failed fetch must not stick: the next request tries again.
      key.catch(() => {
        key = null;
      });
      return key;
    },

    listOrganizationUsers,
    // The backend API lists an organization's users in one page; its owners and administrators are
    // among them (one call, where asking by role would take one per role).
    async listOrganizationAdmins(orgId) {
      const users = await listOrganizationUsers(orgId);
      return users.filter((u) => isAtLeastRole(u.role, "Admin"));
    },

    // The user by email with their organizations (one row there, by the email's index), then their
    // membership of this one.
    async findOrganizationUser(orgId, email) {
      const q = new URLSearchParams({ email: email.toLowerCase(), include_orgs: "true" });
      const r = await call<{
        user_id: string;
        email: string;
        org_id_to_org_info?: Record<string, { user_role: string }>;
      }>(`/api/backend/v1/user/email?${q}`);
      const info = r?.org_id_to_org_info?.[orgId];
      if (!r || !info) return null;
      return { user_id: r.user_id, email: r.email, role: roleOf(info.user_role) };
    },

    async findOrganization(orgId) {
      const r = await call<{ org_id: string; name: string }>(`/api/backend/v1/org/${enc(orgId)}`);
      return r ? { org_id: r.org_id, name: r.name } : null;
    },

    async validateApiKey(token) {
      // 400 is a malformed token: as unknown to the caller as a 404.
      const r = await call<{
        user_id: string;
        api_key_id?: string;
        user: { email: string };
        org_id?: string;
        user_in_org?: OrgMemberInfo;
      }>(
        "/api/backend/v1/end_user_api_keys/validate",
        { method: "POST", body: JSON.stringify({ api_key_token: token }) },
        [400, 404],
      );
      if (!r) return null;
      let org = r.user_in_org ?? null;
      if (!r.org_id) {
        // A personal key acts in the user's first organization.
        const u = await call<{ org_id_to_org_info?: Record<string, OrgMemberInfo> }>(
          `/api/backend/v1/user/${enc(r.user_id)}`,
        );
        org = Object.values(u?.org_id_to_org_info ?? {})[0] ?? null;
      }
      return { userId: r.user_id, email: r.user.email, org, orgKey: !!r.org_id, apiKeyId: r.api_key_id };
    },

    async isOperator(userId) {
      const r = await call<{ is_operator: boolean }>(`/api/backend/v1/user/${enc(userId)}/operator`);
      return r?.is_operator === true;
    },

    async tokenVersion(userId) {
      const r = await call<{ token_version: number; enabled: boolean }>(
        `/api/backend/v1/user/${enc(userId)}/token_version`,
      );
      return r?.enabled && Number.isInteger(r.token_version) ? r.token_version : null;
    },
  };
}
