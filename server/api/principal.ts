import type { FastifyRequest } from "fastify";
import { errors as joseErrors, jwtVerify } from "jose";
import { LRUCache } from "lru-cache";
import { actingMembership, rolesGrantAdmin } from "../../contract/org-membership";
import { ApiError } from "../platform/errors";
import type { IdentityGateway, OrgMemberInfo } from "../platform/identity-gateway";
import { createTokenVersionCheck, type TokenVersionCheck } from "./token-versions";

export type OrgMemberClaim = OrgMemberInfo;

/** Who is calling, from a verified access token. */
export type Principal = {
  userId: string;
  email: string;
  /** The organization the call acts in: the token's active org, else the user's first one. */
  org: OrgMemberClaim | null;
  impersonatorUserId: string | null;
  /** How the caller proved who they are. */
  via: "bearer" | "api_key";
  /** Set for API keys: an org key rather than a personal key. */
  orgKey?: boolean;
  /** Set for API keys: the key's id (never its secret). */
  apiKeyId?: string;
};

type Claims = {
  user_id?: string;
  email?: string;
  org_member_info?: OrgMemberClaim;
  org_id_to_org_member_info?: Record<string, OrgMemberClaim>;
  impersonator_user_id?: string;
  /** Seconds since the epoch; required (jwtVerify checks it). */
  exp?: number;
  /** The user's token version at mint time; tokens minted before versions existed have none (0). */
  tv?: unknown;
};

const unauthorized = (message: string) => new ApiError("unauthorized", message);
const revoked = () =>
  new ApiError(
    "token_revoked",
    "The access token was revoked (signed out, password or role changed, or access removed). Refresh it or sign in again.",
  );

// Verified tokens kept (until their expiry) so a busy client's calls skip the RS256 check: the
// map is keyed by the token itself, holds only tokens whose signature, issuer and claims checked
// out, and is bounded (past the bound, expired tokens are swept, then the oldest dropped).
const VERIFIED_TOKENS_MAX = 5000;

type Verified = { principal: Principal; tv: number; expiresMs: number };

/**
 * Verifies bearer tokens offline with the identity service's public key, then checks that the
 * token's version (`tv`) is still the user's current one (cached for a few seconds, see
 * token-versions.ts): a token minted before a logout, a password reset or a role change stops
 * working within seconds. A token verified once is not verified again until it expires; its
 * version is checked on every call.
 */
export function createBearerVerifier(gateway: IdentityGateway, versions: TokenVersionCheck) {
  // Bounded: past VERIFIED_TOKENS_MAX the least recently used token is verified again next time.
  const verified = new LRUCache<string, Verified>({ max: VERIFIED_TOKENS_MAX });

  function remember(token: string, v: Verified) {
    verified.set(token, v);
  }

  async function verifyToken(token: string): Promise<Verified> {
    // Outside the try: identity being unreachable is its 503, not the caller's bad token.
    const key = await gateway.verificationKey();
    let claims: Claims;
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ["RS256"],
        issuer: gateway.issuer,
        requiredClaims: ["exp", "iat"],
      });
      claims = payload as Claims;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthorized("The access token has expired.");
      throw unauthorized("The access token is not valid.");
    }
    if (!claims.user_id || !claims.email) throw unauthorized("The access token is not valid.");
    const tv = claims.tv === undefined ? 0 : claims.tv;
    if (typeof tv !== "number" || !Number.isSafeInteger(tv))
      throw unauthorized("The access token is not valid.");
    const org = claims.org_member_info ?? actingMembership(claims.org_id_to_org_member_info) ?? null;
    const v: Verified = {
      principal: {
        userId: claims.user_id,
        email: claims.email,
        org,
        impersonatorUserId: claims.impersonator_user_id ?? null,
        via: "bearer",
      },
      tv,
      expiresMs: (claims.exp ?? 0) * 1000,
    };
    remember(token, v);
    return v;
  }

  return async function verify(req: FastifyRequest): Promise<Principal> {
    const header = req.headers.authorization;
    if (!header && req.headers["x-api-key"] !== undefined)
      throw unauthorized("Account calls need a bearer access token; API keys are not accepted here.");
    if (!header) throw unauthorized("Missing bearer token.");
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw unauthorized("The Authorization header must be 'Bearer <access token>'.");
    const token = match[1];
    let v = verified.get(token);
    if (v && v.expiresMs <= Date.now()) {
      verified.delete(token);
      throw unauthorized("The access token has expired.");
    }
    v ??= await verifyToken(token);
    const current = versions.check(v.principal.userId, v.tv);
    if (current !== true && !(await current)) throw revoked();
    // A copy: the cached principal is shared by every call with this token.
    return { ...v.principal };
  };
}

export type BearerVerifier = ReturnType<typeof createBearerVerifier>;

// Longer than any token we issue; anything bigger is refused before reaching identity.
const MAX_API_KEY_LENGTH = 512;

/**
 * Authenticates a product API call. With `apiKey: true` an `x-api-key` header is accepted
 * (validated through the identity gateway, so keys work with identity on another host); it takes
 * precedence over a bearer token. A personal key acts in its user's first organization, an org
 * key in its organization. With `apiKey: false` (account calls) only bearer tokens count.
 */
export function createAuthenticator(gateway: IdentityGateway) {
  const versions = createTokenVersionCheck(gateway);
  const verifyBearer = createBearerVerifier(gateway, versions);
  return async function authenticate(req: FastifyRequest, opts: { apiKey: boolean }): Promise<Principal> {
    const raw = req.headers["x-api-key"];
    if (!opts.apiKey || raw === undefined) return verifyBearer(req);
    const key = typeof raw === "string" ? raw.trim() : "";
    if (!key || key.length > MAX_API_KEY_LENGTH) throw unauthorized("The API key is not valid.");
    const answer = gateway.validateApiKey(key);
    const found = answer instanceof Promise ? await answer : answer;
    if (!found) throw unauthorized("The API key is not valid, has expired or was deleted.");
    return {
      userId: found.userId,
      email: found.email,
      org: found.org,
      impersonatorUserId: null,
      via: "api_key",
      orgKey: found.orgKey,
      apiKeyId: found.apiKeyId,
    };
  };
}

export type Authenticate = (req: FastifyRequest, opts: { apiKey: boolean }) => Promise<Principal>;

export function isOrgAdmin(p: Principal): boolean {
  return rolesGrantAdmin(p.org?.inherited_user_roles_plus_current_role);
}
