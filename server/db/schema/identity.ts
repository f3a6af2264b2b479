import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, index, integer, pgSchema, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt } from "./columns";

// Identity tables live in their own PostgreSQL schema: the product API never reads them,
// it goes through the identity gateway. Column names follow better-auth's model fields.
export const identity = pgSchema("identity");

/** A row that belongs to a user: it goes with them. */
const ownedByUser = () =>
  text("user_id")
    .notNull()
    .references((): AnyPgColumn => user.id, { onDelete: "cascade" });

/** A row that belongs to an organization: it goes with it. */
const ofOrganization = (name: string) =>
  text(name)
    .notNull()
    .references((): AnyPgColumn => organization.id, { onDelete: "cascade" });

export const user = identity.table("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  firstName: text("first_name"),
  lastName: text("last_name"),
  username: text("username").unique(),
  /** JSON object of custom user properties (PropelAuth `properties`). */
  properties: text("properties"),
  twoFactorEnabled: boolean("two_factor_enabled").notNull().default(false),
  /**
   * Bumped whenever the rights an access token carries change (role change, removal, deletion,
   * logout, password reset): tokens carry the version they were minted with (`tv`) and an older
   * one is refused on every product API call.
   */
  tokenVersion: integer("token_version").notNull().default(0),
  /** better-auth admin plugin: "admin" marks a provider operator (may impersonate). */
  role: text("role"),
  /** Disabled users (PropelAuth `enabled: false`): cannot sign in, their API keys stop working. */
  banned: boolean("banned").notNull().default(false),
  banReason: text("ban_reason"),
  banExpires: timestamptz("ban_expires"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const session = identity.table(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: timestamptz("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: ownedByUser(),
    activeOrganizationId: text("active_organization_id"),
    impersonatedBy: text("impersonated_by"),
  },
  (t) => [index("session_user_id_idx").on(t.userId)],
);

export const account = identity.table(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: ownedByUser(),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamptz("access_token_expires_at"),
    refreshTokenExpiresAt: timestamptz("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("account_user_id_idx").on(t.userId)],
);

export const verification = identity.table(
  "verification",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("verification_identifier_idx").on(t.identifier)],
);

export const organization = identity.table(
  "organization",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    logo: text("logo"),
    createdAt: createdAt(),
    metadata: text("metadata"),
    /** "single_role_in_hierarchy" or "multi_role". */
    roleStructure: text("role_structure").notNull().default("single_role_in_hierarchy"),
    /** The organization's email domain, for autojoin and restrict-to-domain. */
    domain: text("domain"),
    autojoinByDomain: boolean("autojoin_by_domain").notNull().default(false),
    restrictToDomain: boolean("restrict_to_domain").notNull().default(false),
    require2faBy: timestamptz("require_2fa_by"),
    maxUsers: integer("max_users"),
    /** Value the organization publishes in a DNS TXT record to prove it owns `domain`. */
    domainVerificationToken: text("domain_verification_token"),
    /** When the DNS proof was checked; only a verified domain may be routed to the org's SSO. */
    domainVerifiedAt: timestamptz("domain_verified_at"),
  },
  // A domain is verified by at most one organization.
  (t) => [
    uniqueIndex("organization_verified_domain_uq").on(t.domain).where(sql`${t.domainVerifiedAt} is not null`),
  ],
);

export const member = identity.table(
  "member",
  {
    id: text("id").primaryKey(),
    organizationId: ofOrganization("organization_id"),
    userId: ownedByUser(),
    // better-auth stores several roles comma-joined; ours are lower-case owner/admin/member.
    role: text("role").notNull().default("member"),
    createdAt: createdAt(),
  },
  (t) => [
    index("member_organization_id_idx").on(t.organizationId),
    uniqueIndex("member_org_user_uq").on(t.organizationId, t.userId),
  ],
);

export const invitation = identity.table(
  "invitation",
  {
    id: text("id").primaryKey(),
    organizationId: ofOrganization("organization_id"),
    email: text("email").notNull(),
    role: text("role"),
    status: text("status").notNull().default("pending"),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: createdAt(),
    inviterId: text("inviter_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
  },
  (t) => [index("invitation_org_idx").on(t.organizationId), index("invitation_email_idx").on(t.email)],
);

/** Instance-wide secrets made on first start (auth secret, token signing key pair). */
export const setting = identity.table("setting", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

export const twoFactor = identity.table(
  "two_factor",
  {
    id: text("id").primaryKey(),
    secret: text("secret").notNull(),
    backupCodes: text("backup_codes").notNull(),
    userId: ownedByUser(),
    verified: boolean("verified").default(true),
    failedVerificationCount: integer("failed_verification_count").default(0),
    lockedUntil: timestamptz("locked_until"),
    /** Last accepted TOTP time step: a code is accepted once (no replay inside its window). */
    lastUsedStep: integer("last_used_step"),
  },
  (t) => [index("two_factor_user_idx").on(t.userId), index("two_factor_secret_idx").on(t.secret)],
);

/** End-user API keys (personal, or an organization's). Only a SHA-256 of the token is kept. */
export const apiKey = identity.table(
  "api_key",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: ownedByUser(),
    orgId: text("org_id").references(() => organization.id, { onDelete: "cascade" }),
    metadata: text("metadata"),
    createdAt: createdAt(),
    expiresAt: timestamptz("expires_at"),
    lastUsedAt: timestamptz("last_used_at"),
  },
  (t) => [index("api_key_user_idx").on(t.userId), index("api_key_org_idx").on(t.orgId)],
);

/** Every email the identity service sends; without SMTP_URL this is the outbox itself. */
export const emailOutbox = identity.table(
  "email_outbox",
  {
    id: text("id").primaryKey(),
    to: text("to").notNull(),
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    createdAt: createdAt(),
    deliveredAt: timestamptz("delivered_at"),
    error: text("error"),
  },
  (t) => [index("email_outbox_to_idx").on(t.to)],
);

/** Failed password sign-ins per email, for lock-out after repeated failures. */
export const loginFailure = identity.table("login_failure", {
  email: text("email").primaryKey(),
  failures: integer("failures").notNull().default(0),
  lastFailureAt: timestamptz("last_failure_at").notNull().defaultNow(),
  lockedUntil: timestamptz("locked_until"),
});

/** Who impersonated whom, and when. */
export const impersonationAudit = identity.table("impersonation_audit", {
  id: text("id").primaryKey(),
  operatorUserId: text("operator_user_id").notNull(),
  targetUserId: text("target_user_id").notNull(),
  startedAt: timestamptz("started_at").notNull().defaultNow(),
  endedAt: timestamptz("ended_at"),
});

/** Per-organization SAML identity provider: the organization's members sign in through it. */
export const samlConnection = identity.table("saml_connection", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  idpEntityId: text("idp_entity_id").notNull(),
  idpSsoUrl: text("idp_sso_url").notNull(),
  /** The IdP's signing certificate (PEM or bare base64). */
  idpCertificate: text("idp_certificate").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * An account linked to an organization's SSO: only linked accounts (or accounts the SSO created)
 * may be signed in through that organization's identity provider.
 */
export const ssoLink = identity.table(
  "sso_link",
  {
    id: text("id").primaryKey(),
    orgId: ofOrganization("org_id"),
    userId: ownedByUser(),
    /** The IdP's subject (NameID) the account is linked to. */
    nameId: text("name_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("sso_link_org_user_uq").on(t.orgId, t.userId)],
);

/** Every write made while impersonating, with the operator's id. */
export const impersonationWrite = identity.table(
  "impersonation_write",
  {
    id: text("id").primaryKey(),
    operatorUserId: text("operator_user_id").notNull(),
    targetUserId: text("target_user_id").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    status: integer("status").notNull(),
    at: timestamptz("at").notNull().defaultNow(),
  },
  (t) => [index("impersonation_write_operator_idx").on(t.operatorUserId, t.at)],
);
