import { randomUUID } from "node:crypto";
import type { Profile } from "@node-saml/node-saml";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { roleToStored } from "../../../contract/role-hierarchy";
import { member, organization, ssoLink, user } from "../../db/schema";
import { writeAudit } from "../../platform/audit";
import type { Tx } from "../../platform/database";
import { sessionCookies, twoFactorChallengeCookies } from "../better-auth/adapter";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { maxUsersOf, membershipCount, seatsTaken } from "../orgs/access";
import { emailDomain } from "../orgs/domain";
import { MAX_ORGS_PER_USER } from "../orgs/limits";
import { verifiedDomainOf } from "./domain-ownership";
import { serviceProvider, spUrls } from "./sp";
import { consumeRequest, findConnection, type SamlConnection } from "./store";

// The assertion consumer: check the IdP's response, then sign in the account the organization's
// SSO may speak for (see admitUser) as a member of the organization. Every refusal is an
// IdentityError with a message fit for the hosted page.

const refused = (message: string) => new IdentityError("bad_request", message);

/** The organization's connection when SAML sign-in is on, else a refusal. */
export async function enabledConnection(ctx: IdentityContext, orgId: string): Promise<SamlConnection> {
  const conn = orgId ? await findConnection(ctx.db, orgId) : null;
  if (!conn)
    throw new IdentityError("action_disabled", "Single sign-on (SAML) is not set up for this organization.");
  if (!conn.enabled)
    throw new IdentityError("action_disabled", "Single sign-on (SAML) is turned off for this organization.");
  return conn;
}

/** node-saml's reasons, as the person signing in should read them. */
function reasonOf(err: unknown): string {
  const m = err instanceof Error ? err.message : "";
  if (/InResponseTo/i.test(m))
    return "This sign-in response was already used, has expired or does not answer a sign-in started here. Please sign in again.";
  if (/signature|certificate|KeyInfo|reference|digest/i.test(m))
    return "The sign-in response is not signed by this organization's identity provider.";
  if (/audience/i.test(m)) return "The sign-in response was meant for another service.";
  if (/expired|not yet valid|too old|subject confirmation/i.test(m))
    return "The sign-in response has expired. Please sign in again.";
  if (/SAML provider returned/i.test(m)) return "Your identity provider refused the sign-in.";
  return "The sign-in response from your identity provider is not valid.";
}

/** The Destination of the Response element (outside comments), if it has one. */
function responseDestination(xml: string): string | null {
  const clean = xml.replace(/<!--[\s\S]*?-->/g, "");
  const root = clean.match(/<(?:[\w.-]+:)?Response\b[^>]*>/);
  const dest = root?.[0].match(/\sDestination\s*=\s*("([^"]*)"|'([^']*)')/);
  return dest ? (dest[2] ?? dest[3] ?? "") : null;
}

type XmlNode = { $?: Record<string, string>; [k: string]: unknown };
/** The Recipient of each bearer SubjectConfirmationData in the signed assertion. */
function recipients(profile: Profile): string[] {
  const doc = (profile.getAssertion?.() ?? {}) as { Assertion?: XmlNode };
  const subject = (doc.Assertion?.Subject as XmlNode[] | undefined)?.[0];
  const confirmations = (subject?.SubjectConfirmation as XmlNode[] | undefined) ?? [];
  return confirmations.flatMap((c) =>
    ((c.SubjectConfirmationData as XmlNode[] | undefined) ?? []).flatMap((d) =>
      d.$?.Recipient !== undefined ? [d.$.Recipient] : [],
    ),
  );
}

const EMAIL_ATTRIBUTES = [
  "email",
  "mail",
  "emailAddress",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
  "urn:oid:0.9.2342.19200300.100.1.3",
];
const FIRST_NAME = [
  "firstName",
  "givenName",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
];
const LAST_NAME = [
  "lastName",
  "surname",
  "sn",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
];

function attribute(profile: Profile, names: string[]): string | undefined {
  const attrs = (profile.attributes ?? {}) as Record<string, unknown>;
  for (const n of names) {
    const v = attrs[n] ?? (profile as Record<string, unknown>)[n];
    const first = Array.isArray(v) ? v[0] : v;
    if (typeof first === "string" && first.trim()) return first.trim();
  }
  return undefined;
}

const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());

/** The asserted email: an email attribute, else the NameID when it is an address. */
function assertedEmail(profile: Profile): string | null {
  for (const candidate of [attribute(profile, EMAIL_ATTRIBUTES), profile.nameID]) {
    const parsed = emailSchema.safeParse(candidate ?? "");
    if (parsed.success) return parsed.data;
  }
  return null;
}

/** Checks a posted SAMLResponse and returns who it signs in. */
async function verifyResponse(ctx: IdentityContext, conn: SamlConnection, samlResponse: string) {
  const urls = spUrls(ctx.config, conn.orgId);
  let profile: Profile | null;
  try {
    ({ profile } = await serviceProvider(ctx.config, ctx.db, conn).validatePostResponseAsync({
      SAMLResponse: samlResponse,
    }));
  } catch (err) {
    throw refused(reasonOf(err));
  }
  if (!profile) throw refused("The sign-in response has no assertion.");
  if (profile.issuer !== conn.idpEntityId)
    throw refused("The sign-in response comes from another identity provider than the one set up.");
  const xml = profile.getSamlResponseXml?.() ?? Buffer.from(samlResponse, "base64").toString("utf8");
  const destination = responseDestination(xml);
  if (destination === null || destination !== urls.acsUrl)
    throw refused("The sign-in response was sent to another address.");
  if (recipients(profile).some((r) => r !== urls.acsUrl))
    throw refused("The sign-in response was meant for another address.");
  const requestId = typeof profile.inResponseTo === "string" ? profile.inResponseTo : "";
  if (!requestId || !(await consumeRequest(ctx.db, conn.orgId, requestId)))
    throw refused(reasonOf(new Error("InResponseTo")));
  const email = assertedEmail(profile);
  if (!email) throw refused("Your identity provider did not send an email address.");
  return {
    email,
    nameId: subjectOf(profile, email),
    firstName: attribute(profile, FIRST_NAME),
    lastName: attribute(profile, LAST_NAME),
  };
}

/** The IdP's subject, as links store it: trimmed, and lower-cased when it is an email address. */
function subjectOf(profile: Pick<Profile, "nameID">, email: string): string {
  const raw = (typeof profile.nameID === "string" ? profile.nameID : "").trim().slice(0, 1024);
  if (!raw) return email;
  return emailSchema.safeParse(raw).success ? raw.toLowerCase() : raw;
}

type OrgRow = typeof organization.$inferSelect;

/** Makes the user a Member of the organization unless they are one, within both member limits. */
export async function ensureMember(tx: Tx, org: OrgRow, userId: string, email: string) {
  const [already] = await tx
    .select({ id: member.id })
    .from(member)
    .where(and(eq(member.organizationId, org.id), eq(member.userId, userId)))
    .limit(1);
  if (already) return;
  if ((await membershipCount(tx, userId)) >= MAX_ORGS_PER_USER)
    throw new IdentityError("user_max_orgs_limit_exceeded");
  if ((await seatsTaken(tx, org.id, { excludeEmail: email })) >= maxUsersOf(org))
    throw new IdentityError("org_max_users_limit_exceeded");
  await tx
    .insert(member)
    .values({ id: randomUUID(), organizationId: org.id, userId, role: roleToStored("Member") });
}

/** Links the account to the organization's SSO subject (one link per account and organization). */
export async function linkAccount(tx: Tx, orgId: string, userId: string, nameId: string) {
  await tx
    .insert(ssoLink)
    .values({ id: randomUUID(), orgId, userId, nameId })
    .onConflictDoUpdate({ target: [ssoLink.orgId, ssoLink.userId], set: { nameId } });
}

export type Admission =
  | { kind: "signed_in"; userId: string }
  | { kind: "link_required"; userId: string; email: string; nameId: string; orgName: string };

/**
 * Who an assertion may sign in. The organization's SSO speaks for:
 * - an account linked to it (identity.sso_link, by the IdP's subject);
 * - a new address of the domain the organization has verified: the account is created
 *   (confirmed: the IdP vouches for the address) and linked.
 * An existing account of that domain that isn't linked yet is never signed in here: its owner
 * must link it first (password or emailed link). Everyone else is refused. Whoever signs in
 * becomes a Member if they aren't one yet, within the member limits.
 */
async function admitUser(
  ctx: IdentityContext,
  orgId: string,
  who: { email: string; nameId: string; firstName?: string; lastName?: string },
): Promise<Admission> {
  return ctx.db.transaction(async (tx) => {
    const [org] = await tx.select().from(organization).where(eq(organization.id, orgId)).for("update");
    if (!org) throw new IdentityError("action_disabled", "This organization no longer exists.");
    const [link] = await tx
      .select({ userId: ssoLink.userId, banned: user.banned, email: user.email })
      .from(ssoLink)
      .innerJoin(user, eq(user.id, ssoLink.userId))
      .where(and(eq(ssoLink.orgId, orgId), eq(ssoLink.nameId, who.nameId)))
      .limit(1);
    if (link) {
      if (link.banned) throw new IdentityError("account_disabled");
      await ensureMember(tx, org, link.userId, link.email);
      return { kind: "signed_in", userId: link.userId };
    }
    const domain = verifiedDomainOf(org);
    if (!domain)
      throw new IdentityError(
        "domain_not_allowed",
        `${org.name} has not verified its email domain, so its single sign-on can only sign in accounts already linked to it.`,
      );
    if (emailDomain(who.email) !== domain)
      throw new IdentityError(
        "domain_not_allowed",
        `Only @${domain} addresses can sign in to ${org.name} with single sign-on.`,
      );
    const [found] = await tx
      .select({ id: user.id, banned: user.banned })
      .from(user)
      .where(eq(user.email, who.email))
      .limit(1);
    if (found?.banned) throw new IdentityError("account_disabled");
    if (found)
      return {
        kind: "link_required",
        userId: found.id,
        email: who.email,
        nameId: who.nameId,
        orgName: org.name,
      };
    const userId = randomUUID();
    // Limits first, so a refused sign-in leaves no account behind.
    if ((await seatsTaken(tx, org.id, { excludeEmail: who.email })) >= maxUsersOf(org))
      throw new IdentityError("org_max_users_limit_exceeded");
    await tx.insert(user).values({
      id: userId,
      email: who.email,
      name: [who.firstName, who.lastName].filter(Boolean).join(" ") || who.email,
      emailVerified: true,
      firstName: who.firstName?.slice(0, 100) ?? null,
      lastName: who.lastName?.slice(0, 100) ?? null,
    });
    await linkAccount(tx, orgId, userId, who.nameId);
    await ensureMember(tx, org, userId, who.email);
    // A new account of the verified domain joins through single sign-on: a domain join.
    await writeAudit(tx, {
      organizationUuid: org.id,
      actor: { userId, email: who.email, source: "console" },
      action: "org_user.joined_by_domain",
      target: { type: "org_user", id: userId, label: who.email },
      after: { role: "Member", domain, via: "sso" },
    });
    return { kind: "signed_in", userId };
  });
}

/**
 * The end of any sign-in that proved who the user is outside the password form: a session, or,
 * when the account has a second factor, the two-factor challenge (SSO never skips MFA).
 */
export async function sessionOrSecondFactor(ctx: IdentityContext, userId: string) {
  const [u] = await ctx.db.select({ mfa: user.twoFactorEnabled }).from(user).where(eq(user.id, userId));
  if (u?.mfa) return { needsCode: true as const, cookies: await twoFactorChallengeCookies(ctx.auth, userId) };
  return { needsCode: false as const, cookies: await sessionCookies(ctx.auth, userId) };
}

export type AcsOutcome =
  | { kind: "session" | "second_factor"; userId: string; cookies: string[] }
  | Extract<Admission, { kind: "link_required" }>;

/** The whole assertion-consumer step. */
export async function consumeAssertion(
  ctx: IdentityContext,
  orgId: string,
  samlResponse: string,
): Promise<AcsOutcome> {
  const conn = await enabledConnection(ctx, orgId);
  if (!samlResponse || samlResponse.length > 500_000 || !/^[A-Za-z0-9+/=\s]+$/.test(samlResponse))
    throw refused("The sign-in response is missing or malformed.");
  const who = await verifyResponse(ctx, conn, samlResponse);
  const admitted = await admitUser(ctx, orgId, who);
  if (admitted.kind === "link_required") return admitted;
  const { needsCode, cookies } = await sessionOrSecondFactor(ctx, admitted.userId);
  return { kind: needsCode ? "second_factor" : "session", userId: admitted.userId, cookies };
}
