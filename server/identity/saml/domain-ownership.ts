import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { and, eq, isNotNull, isNull, ne } from "drizzle-orm";
import { organization } from "../../db/schema";
import type { Config } from "../../platform/config";
import { type Db, isUniqueViolation } from "../../platform/database";
import { IdentityError } from "../errors";
import { isPersonalDomain } from "../orgs/domain";

// Domain ownership for single sign-on. An organization's SSO may only speak for the email domain
// it has proven it owns: the Owner publishes a DNS TXT record
//   _evalconsole-verification.<domain>  "evalconsole-verification=<token>"
// and asks us to check it. A domain is verified by at most one organization (the partial unique
// index organization_verified_domain_uq), and a personal mailbox domain never can be.

const RECORD_PREFIX = "_evalconsole-verification";
export const recordName = (domain: string) => `${RECORD_PREFIX}.${domain}`;
export const recordValue = (token: string) => `evalconsole-verification=${token}`;

export type DomainOwnership = {
  domain: string;
  token: string;
  verifiedAt: Date | null;
};

/** The organization's domain, verification token and verification time as stored. */
async function storedOwnership(db: Db, orgId: string) {
  const [org] = await db
    .select({
      domain: organization.domain,
      token: organization.domainVerificationToken,
      verifiedAt: organization.domainVerifiedAt,
    })
    .from(organization)
    .where(eq(organization.id, orgId));
  return org;
}

/**
 * The organization's domain and its verification token, making both when missing: the domain is
 * the one SAML is bound to (see samlDomainOf), the token a random value that only this
 * organization is shown.
 */
export async function ownershipOf(db: Db, orgId: string, domain: string): Promise<DomainOwnership> {
  await db
    .update(organization)
    .set({ domain })
    .where(and(eq(organization.id, orgId), isNull(organization.domain)));
  await db
    .update(organization)
    .set({ domainVerificationToken: randomBytes(18).toString("base64url") })
    .where(and(eq(organization.id, orgId), isNull(organization.domainVerificationToken)));
  const org = await storedOwnership(db, orgId);
  if (!org?.domain || !org.token) throw new IdentityError("org_not_found");
  return { domain: org.domain, token: org.token, verifiedAt: org.verifiedAt };
}

/** The TXT strings published at `name`, through DNS_RESOLVER when set (else the system's). */
async function lookupTxt(config: Pick<Config, "dnsResolver">, name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (config.dnsResolver) resolver.setServers([config.dnsResolver]);
  try {
    // A long record comes back in 255-byte chunks: join them.
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOTFOUND" || code === "ENODATA" || code === "NOTFOUND" || code === "NODATA") return [];
    throw new IdentityError(
      "bad_request",
      "The DNS lookup of the verification record failed. Please try again in a few minutes.",
      undefined,
      502,
    );
  }
}

const takenError = (domain: string) =>
  new IdentityError(
    "action_already_complete",
    `${domain} is already verified by another organization. A domain can be verified by one organization only.`,
    undefined,
    409,
  );

/**
 * Checks the organization's TXT record and marks its domain verified. Refuses a personal mailbox
 * domain, a missing or different record, and a domain another organization has verified.
 */
export async function verifyDomain(db: Db, config: Config, orgId: string): Promise<DomainOwnership> {
  const org = await storedOwnership(db, orgId);
  if (!org?.domain || !org.token)
    throw new IdentityError("bad_request", "Ask for a verification record first.");
  const { domain, token } = org;
  if (org.verifiedAt) return { domain, token, verifiedAt: org.verifiedAt };
  if (isPersonalDomain(domain))
    throw new IdentityError(
      "personal_domain_error",
      `${domain} is a personal email domain: it can't be verified for an organization.`,
    );
  const [taken] = await db
    .select({ id: organization.id })
    .from(organization)
    .where(
      and(
        eq(organization.domain, domain),
        isNotNull(organization.domainVerifiedAt),
        ne(organization.id, orgId),
      ),
    )
    .limit(1);
  if (taken) throw takenError(domain);
  const found = await lookupTxt(config, recordName(domain));
  if (!found.some((v) => v.trim() === recordValue(token)))
    throw new IdentityError(
      "bad_request",
      found.length
        ? `The TXT record at ${recordName(domain)} does not hold this organization's value. Check it and try again (DNS changes can take a few minutes).`
        : `No TXT record was found at ${recordName(domain)}. Add it and try again (DNS changes can take a few minutes).`,
    );
  const verifiedAt = new Date();
  try {
    await db
      .update(organization)
      .set({ domainVerifiedAt: verifiedAt })
      .where(and(eq(organization.id, orgId), eq(organization.domain, domain)));
  } catch (err) {
    if (isUniqueViolation(err)) throw takenError(domain);
    throw err;
  }
  return { domain, token, verifiedAt };
}

/** The organization's domain when it is verified, else null. */
export function verifiedDomainOf(org: { domain: string | null; domainVerifiedAt: Date | null }) {
  return org.domain && org.domainVerifiedAt ? org.domain : null;
}
