import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, eq, gt } from "drizzle-orm";
import { z } from "zod";
import { organization, user, verification } from "../../db/schema";
import type { Db } from "../../platform/database";
import type { IdentityContext } from "../context";
import type { Email } from "../email/mailer";
import { IdentityError } from "../errors";
import { ensureMember, linkAccount } from "./signin";

// Linking an existing account to an organization's SSO. A SAML assertion for an account the
// organization's SSO is not linked to yet leaves a pending link (15 minutes) and a page; the link
// is only made once the account's owner proves it: by signing in with the account's password, or
// by following a link emailed to the account's address (24 hours). Both tokens are random,
// handed out once, and stored only as SHA-256 hashes in the verification table.

const PENDING_TTL_MS = 15 * 60 * 1000;
const CONFIRM_TTL_MS = 24 * 60 * 60 * 1000;

const pendingSchema = z.object({
  orgId: z.string(),
  userId: z.string(),
  email: z.string(),
  nameId: z.string(),
  rt: z.string().optional(),
});
export type PendingLink = z.infer<typeof pendingSchema>;

type Kind = "pending" | "confirm";
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");
const key = (kind: Kind, token: string) => `sso-link-${kind}:${hashOf(token)}`;
/** Tokens are 32 random bytes in base64url; anything else is not worth a query. */
const wellFormed = (token: string | undefined): token is string =>
  typeof token === "string" && /^[A-Za-z0-9_-]{43}$/.test(token);

/** Stores a pending link and returns its token (the only copy of it). */
export async function createPending(db: Db, kind: Kind, link: PendingLink): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await db.insert(verification).values({
    id: randomUUID(),
    identifier: key(kind, token),
    value: JSON.stringify(link),
    expiresAt: new Date(Date.now() + (kind === "pending" ? PENDING_TTL_MS : CONFIRM_TTL_MS)),
  });
  return token;
}

const parse = (value: string | undefined): PendingLink | null => {
  try {
    const r = pendingSchema.safeParse(JSON.parse(value ?? ""));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
};

/** The pending link behind a token, while it is open. */
export async function readPending(
  db: Db,
  kind: Kind,
  token: string | undefined,
): Promise<PendingLink | null> {
  if (!wellFormed(token)) return null;
  const [row] = await db
    .select({ value: verification.value })
    .from(verification)
    .where(and(eq(verification.identifier, key(kind, token)), gt(verification.expiresAt, new Date())))
    .limit(1);
  return parse(row?.value);
}

/** Uses a token up (once, even when two requests race); null when spent or expired. */
export async function consumePending(
  db: Db,
  kind: Kind,
  token: string | undefined,
): Promise<PendingLink | null> {
  if (!wellFormed(token)) return null;
  const gone = await db
    .delete(verification)
    .where(eq(verification.identifier, key(kind, token)))
    .returning({ value: verification.value, expiresAt: verification.expiresAt });
  const row = gone.find((r) => r.expiresAt > new Date());
  return row ? parse(row.value) : null;
}

/** Makes the link (and the membership) a pending link stands for. */
export async function completeLink(ctx: IdentityContext, link: PendingLink) {
  await ctx.db.transaction(async (tx) => {
    const [org] = await tx.select().from(organization).where(eq(organization.id, link.orgId)).for("update");
    if (!org) throw new IdentityError("action_disabled", "This organization no longer exists.");
    const [u] = await tx
      .select({ email: user.email, banned: user.banned, verified: user.emailVerified })
      .from(user)
      .where(eq(user.id, link.userId));
    if (!u || u.email !== link.email)
      throw new IdentityError(
        "bad_request",
        "This account changed since the link was asked for. Please sign in again.",
      );
    if (u.banned) throw new IdentityError("account_disabled");
    await linkAccount(tx, org.id, link.userId, link.nameId);
    // Both the account's owner and the organization's identity provider vouch for the address.
    if (!u.verified)
      await tx
        .update(user)
        .set({ emailVerified: true, updatedAt: new Date() })
        .where(eq(user.id, link.userId));
    await ensureMember(tx, org, link.userId, link.email);
  });
}

export function linkConfirmationEmail(base: string, to: string, orgName: string, token: string): Email {
  const url = `${base}/saml/link/confirm?${new URLSearchParams({ token }).toString()}`;
  return {
    to,
    kind: "sso_link",
    subject: `Link your Eval Console account to ${orgName}'s single sign-on`,
    text:
      `Someone signed in through ${orgName}'s identity provider as ${to}. To let ${orgName}'s single sign-on ` +
      `sign you in to your existing Eval Console account from now on, open this link (it works once, for 24 hours):\n\n${url}\n\n` +
      "If this wasn't you, ignore this email: nothing changes until the link is opened and confirmed.",
  };
}
