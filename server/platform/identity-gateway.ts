import type { KeyObject } from "node:crypto";
import type { Actor } from "./audit";

export type OrganizationUser = { user_id: string; email: string; role: "Owner" | "Admin" | "Member" };

/** A user's membership in one organization, as access tokens carry it (PropelAuth OrgMemberInfo). */
export type OrgMemberInfo = {
  org_id: string;
  org_name: string;
  user_role: string;
  inherited_user_roles_plus_current_role: string[];
  user_permissions: string[];
};

/** Who a valid end-user API key acts as. */
export type ApiKeyIdentity = {
  userId: string;
  email: string;
  /** An org key's organization; for a personal key the user's first organization, if any. */
  org: OrgMemberInfo | null;
  /** An org key (acts for its organization) rather than a personal key. */
  orgKey: boolean;
  /** The key's id (never its secret): eval runs record which key started them. */
  apiKeyId?: string;
};

/**
 * The one narrow interface through which the product API reaches identity. The in-process
 * implementation lives with the identity service; the HTTP one (identity-gateway-http.ts:
 * token_verification_metadata and the backend API) serves deployments where the two run on
 * separate hosts.
 */
export interface IdentityGateway {
  /** `iss` every access token must carry. */
  readonly issuer: string;
  /** Public key that verifies RS256 access tokens offline. */
  verificationKey(): Promise<KeyObject | CryptoKey>;
  listOrganizationUsers(orgId: string): Promise<OrganizationUser[]>;
  /** The organization's owners and administrators (listOrganizationUsers' with those roles), by email. */
  listOrganizationAdmins(orgId: string): Promise<OrganizationUser[]>;
  /** The organization's user with this email (lower case), or null when no member has it. */
  findOrganizationUser(orgId: string, email: string): Promise<OrganizationUser | null>;
  findOrganization(orgId: string): Promise<{ org_id: string; name: string } | null>;
  /**
   * The identity behind an end-user API key; null when it is unknown, expired, deleted or dead.
   * May answer without a promise (the in-process gateway does for a key it has cached), so a call
   * authenticated by a cached key costs no more turns of the event loop than a bearer token.
   */
  validateApiKey(token: string): ApiKeyIdentity | null | Promise<ApiKeyIdentity | null>;
  /** Whether the user is a provider operator (identity role "admin"); false for unknown or banned users. */
  isOperator(userId: string): Promise<boolean>;
  /**
   * The user's current access-token version (access tokens carry the version they were minted
   * with as `tv`; identity bumps it on logout, password reset or change, role change, removal,
   * deletion...). Null for an unknown (deleted) or disabled user: none of their tokens count.
   */
  tokenVersion(userId: string): Promise<number | null>;
  /**
   * Hears of version changes as they happen (this process, and other processes through
   * PostgreSQL LISTEN when the gateway can); `reset` means some may have been missed. Returns the
   * unsubscribe function. Without it callers rely on their cache's short lifetime alone.
   */
  watchTokenVersions?(handlers: TokenVersionWatcher): () => Promise<void>;
}

/**
 * Who the provider operators are, and granting or revoking the role: identity's own writes, which
 * the operator API reaches through this (wired by the composition root, server/app.ts).
 */
export interface OperatorRoles {
  /** Every user holding the operator role, by email. */
  list(): Promise<{ userId: string; email: string }[]>;
  /**
   * Grants or revokes the role, audited as `actor`; null when no user has the email. With
   * `keepOne`, revoking the last operator who can act is refused (a DomainError, "conflict").
   */
  set(
    email: string,
    grant: boolean,
    actor: Actor,
    opts: { keepOne: boolean },
  ): Promise<{ userId: string; email: string } | null>;
}

export type TokenVersionWatcher = { changed(userId: string): void; reset(): void };
