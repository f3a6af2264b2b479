import { randomUUID } from "node:crypto";
import type { Profile } from "@node-saml/node-saml";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { member, organization, user } from "../../db/schema";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { startSession } from "../login/cookies";
import { maxUsersOf, membershipCount, seatsTaken } from "../orgs/access";
import { emailDomain } from "../orgs/domain";
import { MAX_ORGS_PER_USER } from "../orgs/limits";
import { roleToStored } from "../roles";
import { serviceProvider, spUrls } from "./sp";
import { consumeRequest, findConnection, type SamlConnection } from "./store";

// The assertion consumer: check the IdP's response, then sign the asserted user in as a member
// of the organization. Every refusal is an IdentityError with a message fit for the hosted page.

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
export async function verifyResponse(ctx: IdentityContext, conn: SamlConnection, samlResponse: string) {
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
  return { email, firstName: attribute(profile, FIRST_NAME), lastName: attribute(profile, LAST_NAME) };
}

/**
 * Finds or creates the user (confirmed: the IdP vouches for the address) and makes them a Member
 * of the organization if they aren't one yet, within its member limit. Returns the user's id.
 */
export async function admitUser(
  ctx: IdentityContext,
  orgId: string,
  who: { email: string; firstName?: string; lastName?: string },
): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const [org] = await tx.select().from(organization).where(eq(organization.id, orgId)).for("update");
    if (!org) throw new IdentityError("action_disabled", "This organization no longer exists.");
    if (!org.domain || emailDomain(who.email) !== org.domain)
      throw new IdentityError(
        "domain_not_allowed",
        `Only ${org.domain ? `@${org.domain}` : "company"} addresses can sign in to ${org.name} with single sign-on.`,
      );
    const [found] = await tx
      .select({ id: user.id, banned: user.banned, verified: user.emailVerified })
      .from(user)
      .where(eq(user.email, who.email))
      .limit(1);
    if (found?.banned) throw new IdentityError("account_disabled");
    let userId = found?.id;
    if (!userId) {
      userId = randomUUID();
      await tx.insert(user).values({
        id: userId,
        email: who.email,
        name: [who.firstName, who.lastName].filter(Boolean).join(" ") || who.email,
        emailVerified: true,
        firstName: who.firstName?.slice(0, 100) ?? null,
        lastName: who.lastName?.slice(0, 100) ?? null,
      });
    } else if (!found?.verified) {
      await tx.update(user).set({ emailVerified: true, updatedAt: new Date() }).where(eq(user.id, userId));
    }
    const [already] = await tx
      .select({ id: member.id })
      .from(member)
      .where(and(eq(member.organizationId, orgId), eq(member.userId, userId)))
      .limit(1);
    if (!already) {
      if ((await membershipCount(tx, userId)) >= MAX_ORGS_PER_USER)
        throw new IdentityError("user_max_orgs_limit_exceeded");
      if ((await seatsTaken(tx, orgId, { excludeEmail: who.email })) >= maxUsersOf(org))
        throw new IdentityError("org_max_users_limit_exceeded");
      await tx
        .insert(member)
        .values({ id: randomUUID(), organizationId: orgId, userId, role: roleToStored("Member") });
    }
    return userId;
  });
}

/** The whole assertion-consumer step: returns the session cookie to set. */
export async function consumeAssertion(ctx: IdentityContext, orgId: string, samlResponse: string) {
  const conn = await enabledConnection(ctx, orgId);
  if (!samlResponse || samlResponse.length > 500_000 || !/^[A-Za-z0-9+/=\s]+$/.test(samlResponse))
    throw refused("The sign-in response is missing or malformed.");
  const who = await verifyResponse(ctx, conn, samlResponse);
  const userId = await admitUser(ctx, orgId, who);
  return { userId, cookie: await startSession(ctx, userId) };
}
