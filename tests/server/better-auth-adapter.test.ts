import { applySetCookies, getSessionCookie } from "better-auth/cookies";
import { eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { session, twoFactor } from "../../server/db/schema";
import {
  confirmationPendingCookies,
  confirmationPendingUser,
  decryptSecret,
  encryptSecret,
  hashPassword,
  sessionCookies,
  twoFactorChallengeCookies,
  twoFactorChallengeUser,
  verifyPassword,
} from "../../server/identity/better-auth/adapter";
import { COOKIE_PREFIX } from "../../server/identity/better-auth/auth";
import { hashToken } from "../../server/identity/better-auth/hashed-tokens";
import { endStartedSession, startedSessionUser } from "../../server/identity/better-auth/started-session";
import { backends, PASSWORD, startProduct, type TestProduct } from "./harness";

// What the identity service relies on from better-auth beyond its public API, checked against
// better-auth itself: the cookies and rows made here are the ones its own endpoints accept.
// A better-auth upgrade that changes any of it fails here first.

/** The request headers of a browser holding these Set-Cookie values. */
const holding = (setCookies: string[]) => {
  const headers = new Headers();
  applySetCookies(headers, setCookies);
  return headers;
};

/** The same cookies with the last character of each value changed (a forged signature). */
const forged = (setCookies: string[]) =>
  setCookies.map((c) =>
    c.replace(/^([^;]*?)(.)(;|$)/, (_m, v, last, end) => `${v}${last === "A" ? "B" : "A"}${end}`),
  );

describe.each(backends())("better-auth adapter on $name", (backend) => {
  let p: TestProduct;
  let n = 0;
  const newUser = async () => {
    const email = `adapter-${n++}@example.com`;
    return p.identity.admin.createUser({ email, password: PASSWORD });
  };
  const auth = () => p.identity.auth;

  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => p?.dispose());

  it("hashes passwords the way better-auth's sign-in checks them", async () => {
    const u = await newUser();
    const signedIn = await auth().api.signInEmail({ body: { email: u.email, password: PASSWORD } });
    expect(signedIn.user.id).toBe(u.id);
    const hash = await hashPassword(auth(), "another-password");
    expect(await verifyPassword(auth(), hash, "another-password")).toBe(true);
    expect(await verifyPassword(auth(), hash, "another-passworD")).toBe(false);
  });

  it("starts a session better-auth accepts, its token stored only as a digest", async () => {
    const u = await newUser();
    const cookies = await sessionCookies(auth(), u.id);
    const headers = holding(cookies);
    expect((await auth().api.getSession({ headers }))?.user.id).toBe(u.id);
    const token = getSessionCookie(headers, { cookiePrefix: COOKIE_PREFIX })?.split(".")[0] ?? "";
    const rows = await p.database.db
      .select({ token: session.token })
      .from(session)
      .where(eq(session.userId, u.id));
    expect(rows.map((r) => r.token)).toEqual([hashToken(token)]);
    expect(await auth().api.getSession({ headers: holding(forged(cookies)) })).toBeNull();
  });

  it("opens a second-factor challenge that better-auth's verify-TOTP completes", async () => {
    const u = await newUser();
    const own = holding(await sessionCookies(auth(), u.id));
    const enabled = await auth().api.enableTwoFactor({ body: { password: PASSWORD }, headers: own });
    if (enabled.method !== "totp") throw new Error("expected a TOTP secret");
    const code = () => (OTPAuth.URI.parse(enabled.totpURI) as OTPAuth.TOTP).generate();
    await auth().api.verifyTOTP({ body: { code: code() }, headers: own });

    const challenge = await twoFactorChallengeCookies(auth(), u.id);
    const browser = holding(challenge);
    expect(await twoFactorChallengeUser(auth(), browser)).toBe(u.id);
    expect(await twoFactorChallengeUser(auth(), holding(forged(challenge)))).toBeNull();
    expect(await twoFactorChallengeUser(auth(), new Headers())).toBeNull();

    const done = await auth().api.verifyTOTP({
      body: { code: code() },
      headers: browser,
      returnHeaders: true,
    });
    const signedIn = await auth().api.getSession({ headers: holding(done.headers.getSetCookie()) });
    expect(signedIn?.user.id).toBe(u.id);
    // The challenge is spent.
    expect(await twoFactorChallengeUser(auth(), browser)).toBeNull();
  });

  it("encrypts secrets as the two-factor plugin stores them", async () => {
    const u = await newUser();
    const own = holding(await sessionCookies(auth(), u.id));
    await auth().api.enableTwoFactor({ body: { password: PASSWORD }, headers: own });
    const codes = ["aaaaa-bbbbb", "ccccc-ddddd"];
    await p.database.db
      .update(twoFactor)
      .set({ backupCodes: await encryptSecret(auth(), JSON.stringify(codes)) })
      .where(eq(twoFactor.userId, u.id));
    expect((await auth().api.viewBackupCodes({ body: { userId: u.id } })).backupCodes).toEqual(codes);
    const [row] = await p.database.db.select().from(twoFactor).where(eq(twoFactor.userId, u.id));
    expect(await decryptSecret(auth(), row?.backupCodes ?? "")).toBe(JSON.stringify(codes));
  });

  it("marks a browser as confirming an email; forged or absent cookies name nobody", async () => {
    const u = await newUser();
    const cookies = await confirmationPendingCookies(auth(), u.id);
    expect(cookies[0]).toMatch(/Max-Age=86400/);
    expect(await confirmationPendingUser(auth(), holding(cookies))).toBe(u.id);
    expect(await confirmationPendingUser(auth(), holding(forged(cookies)))).toBeNull();
    expect(await confirmationPendingUser(auth(), new Headers())).toBeNull();
  });

  it("ends a session an answer started and answers the cookies that clear it", async () => {
    const email = `adapter-${n++}@example.com`;
    const answer = await auth().api.signUpEmail({
      body: { email, password: PASSWORD, name: email },
      returnHeaders: true,
    });
    const started = answer.headers.getSetCookie();
    expect((await startedSessionUser(auth(), started))?.email).toBe(email);
    const clearing = await endStartedSession(auth(), started);
    expect(await startedSessionUser(auth(), started)).toBeNull();
    const sessionCookie = clearing.find((c) => c.includes(".session_token="));
    expect(sessionCookie).toMatch(/Max-Age=0/);
    // The started session's token is not sent on.
    expect(clearing.join("\n")).not.toContain(
      getSessionCookie(holding(started), { cookiePrefix: COOKIE_PREFIX }),
    );
  });
});
