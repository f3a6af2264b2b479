import { randomUUID, X509Certificate } from "node:crypto";
import type { CacheProvider } from "@node-saml/node-saml";
import { and, eq, gt, isNotNull, isNull, like, lt, type SQL } from "drizzle-orm";
import { organization, samlConnection, verification } from "../../db/schema";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db } from "../../platform/database";

// Per-organization SAML settings (table saml_connection), what the SAML pages read of the
// organization itself, and the ids of the sign-in requests we sent, kept in the shared
// verification table so any instance can check a response.

export type SamlConnection = typeof samlConnection.$inferSelect;

export async function findConnection(db: Db, orgId: string): Promise<SamlConnection | null> {
  const [row] = await db.select().from(samlConnection).where(eq(samlConnection.orgId, orgId)).limit(1);
  return row ?? null;
}

/** The organization's name, or null when there is no such organization. */
export async function organizationName(db: Db, orgId: string): Promise<string | null> {
  const [row] = await db
    .select({ name: organization.name })
    .from(organization)
    .where(eq(organization.id, orgId))
    .limit(1);
  return row?.name ?? null;
}

/**
 * Binds the organization to the email domain its SAML sign-in is set up for, unless it already
 * has one (an organization's domain is never replaced here).
 */
export async function bindDomainIfUnset(db: Db, orgId: string, domain: string) {
  await db
    .update(organization)
    .set({ domain })
    .where(and(eq(organization.id, orgId), isNull(organization.domain)));
}

export async function isSamlEnabled(db: Db, orgId: string): Promise<boolean> {
  return (await findConnection(db, orgId))?.enabled === true;
}

/** The organization matching `which` whose SAML sign-in is on and whose domain is verified. */
async function routableOrg(db: Db, which: SQL): Promise<string | null> {
  const [row] = await db
    .select({ id: organization.id })
    .from(organization)
    .innerJoin(samlConnection, eq(samlConnection.orgId, organization.id))
    .where(and(which, isNotNull(organization.domainVerifiedAt), eq(samlConnection.enabled, true)))
    .limit(1);
  return row?.id ?? null;
}

/**
 * The organization that has verified this email domain, when its SAML sign-in is on. An
 * unverified domain is never routed to anyone's SSO (several organizations may claim it).
 */
export async function samlOrgForDomain(db: Db, domain: string): Promise<string | null> {
  return domain ? routableOrg(db, eq(organization.domain, domain.toLowerCase())) : null;
}

/** SAML sign-in is on and the organization has verified its domain: sign-ins may be routed to it. */
export async function isSamlRoutable(db: Db, orgId: string): Promise<boolean> {
  return (await routableOrg(db, eq(organization.id, orgId))) !== null;
}

export type ConnectionInput = {
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificate: string;
  enabled: boolean;
};

/** The settings as the audit log shows them: the certificate by its SHA-256 fingerprint only. */
function settingsSnapshot(c: ConnectionInput) {
  let fingerprint: string | null = null;
  try {
    fingerprint = new X509Certificate(c.idpCertificate).fingerprint256;
  } catch {
    fingerprint = null;
  }
  return {
    idp_entity_id: c.idpEntityId,
    idp_sso_url: c.idpSsoUrl,
    enabled: c.enabled,
    idp_signing_fingerprint: fingerprint,
  };
}

/** Saves an organization's SAML settings and their audit row (an unchanged save writes none). */
export async function saveConnection(db: Db, orgId: string, input: ConnectionInput, actor: Actor) {
  const now = new Date();
  await db.transaction(async (tx) => {
    const [was] = await tx.select().from(samlConnection).where(eq(samlConnection.orgId, orgId)).for("update");
    await tx
      .insert(samlConnection)
      .values({ orgId, ...input, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: samlConnection.orgId, set: { ...input, updatedAt: now } });
    const before = was ? settingsSnapshot(was) : null;
    const after = settingsSnapshot(input);
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    await writeAudit(tx, {
      organizationUuid: orgId,
      actor,
      action: "sso.settings_changed",
      target: { type: "sso_connection", id: orgId, label: "SAML single sign-on" },
      before,
      after,
    });
  });
}

/**
 * The certificate as PEM when it parses as X.509 (PEM or bare base64 DER), else null.
 * Whitespace and line breaks pasted from an IdP's console are tolerated.
 */
export function normalizeCertificate(text: string): string | null {
  const body = text
    .replace(/-----BEGIN CERTIFICATE-----/g, "")
    .replace(/-----END CERTIFICATE-----/g, "")
    .replace(/\s+/g, "");
  if (!body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join("\n")}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return null;
  }
}

/** How long a sign-in request may wait for its response. */
export const REQUEST_TTL_MS = 10 * 60 * 1000;
const requestKey = (orgId: string, id: string) => `saml-request:${orgId}:${id}`;

/**
 * node-saml's request-id cache over the verification table, scoped to one organization. Removal
 * is left to `consumeRequest`, which runs once a response fully checks out: it deletes the row
 * atomically, so a response can be used once even when two instances see it at the same time.
 */
export function requestCache(db: Db, orgId: string): CacheProvider {
  return {
    async saveAsync(key, value) {
      const now = new Date();
      // Old requests of this organization that were never answered go first.
      await db
        .delete(verification)
        .where(and(like(verification.identifier, requestKey(orgId, "%")), lt(verification.expiresAt, now)));
      await db.insert(verification).values({
        id: randomUUID(),
        identifier: requestKey(orgId, key),
        value,
        expiresAt: new Date(now.getTime() + REQUEST_TTL_MS),
      });
      return { value, createdAt: now.getTime() };
    },
    async getAsync(key) {
      const [row] = await db
        .select({ value: verification.value })
        .from(verification)
        .where(
          and(eq(verification.identifier, requestKey(orgId, key)), gt(verification.expiresAt, new Date())),
        )
        .limit(1);
      return row?.value ?? null;
    },
    async removeAsync() {
      return null;
    },
  };
}

/** Uses up a request id; false when it was already used (a replayed response) or has expired. */
export async function consumeRequest(db: Db, orgId: string, id: string): Promise<boolean> {
  const gone = await db
    .delete(verification)
    .where(eq(verification.identifier, requestKey(orgId, id)))
    .returning({ expiresAt: verification.expiresAt });
  return gone.some((r) => r.expiresAt > new Date());
}
