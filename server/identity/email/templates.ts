import type { Email } from "./mailer";

// Plain, short emails; every link points at a hosted page of the identity service (never at
// better-auth's internal endpoints), so the user lands on our UI.

const link = (base: string, path: string, params: Record<string, string>) =>
  `${base}${path}?${new URLSearchParams(params).toString()}`;

/** The `rt` a flow started with rides along in its emailed link, so the user ends where they began. */
const withRt = (params: Record<string, string>, rt: string | null | undefined) =>
  rt ? { ...params, rt } : params;

export function confirmEmail(base: string, to: string, token: string, rt?: string | null): Email {
  const url = link(base, "/confirm_email", withRt({ token }, rt));
  return {
    to,
    kind: "confirm_email",
    subject: "Confirm your email for Eval Console",
    text: `Confirm your email address by opening this link:\n\n${url}\n\nIf you did not sign up, ignore this email.`,
  };
}

export function resetPassword(base: string, to: string, token: string): Email {
  const url = link(base, "/reset_password", { token });
  return {
    to,
    kind: "reset_password",
    subject: "Reset your Eval Console password",
    text: `Choose a new password here (the link works for one hour):\n\n${url}\n\nIf you did not ask for this, ignore this email.`,
  };
}

/** Sign-up was tried with an address that has an account: the owner hears of it, nobody else. */
export function signupAttemptNotice(base: string, to: string): Email {
  return {
    to,
    kind: "signup_attempt",
    subject: "Someone tried to sign up to Eval Console with your email",
    text: `Someone tried to create an Eval Console account with this email address, which already has one. No new account was created.\n\nIf it was you, sign in instead:\n\n${base}/login\n\nForgot your password? Reset it here:\n\n${base}/forgot_password\n\nIf it was not you, you can ignore this email.`,
  };
}

/**
 * Someone asked to move their account to an address that already has one: the owner hears of it
 * (no link: nothing can be changed from this email), the asker gets the usual answer.
 */
export function emailChangeAttemptNotice(base: string, to: string): Email {
  return {
    to,
    kind: "email_change_attempt",
    subject: "Someone tried to use your email for another Eval Console account",
    text: `Someone signed in to another Eval Console account asked to change that account's email to this address, which already has an account. Nothing was changed: your account keeps this address.\n\nIf it was you, sign in to this account instead:\n\n${base}/login\n\nIf it was not you, you can ignore this email.`,
  };
}

/** After many failed sign-ins from many places the account is locked; this link lifts the lock. */
export function accountUnlockEmail(base: string, to: string, token: string, minutes: number): Email {
  const url = link(base, "/unlock_account", { token });
  return {
    to,
    kind: "account_unlock",
    subject: "Your Eval Console account was locked",
    text: `Your Eval Console account was locked after many failed sign-in attempts from different places. If they were not yours, someone may be guessing your password; consider choosing a new one.\n\nUnlock your account with this link (it works once, for ${minutes} minutes):\n\n${url}\n\nResetting your password also unlocks it:\n\n${base}/forgot_password`,
  };
}

export function magicLinkEmail(base: string, to: string, token: string, rt?: string | null): Email {
  const url = link(base, "/magic_link", withRt({ token }, rt));
  return {
    to,
    kind: "magic_link",
    subject: "Your Eval Console sign-in link",
    text: `Sign in to Eval Console with this link (it works once, for 10 minutes):\n\n${url}`,
  };
}

export function invitationEmail(
  base: string,
  to: string,
  invitationId: string,
  orgName: string,
  inviter: string,
): Email {
  const url = link(base, "/accept_invite", { id: invitationId });
  return {
    to,
    kind: "invitation",
    subject: `${inviter} invited you to ${orgName} on Eval Console`,
    text: `${inviter} invited you to join ${orgName} on Eval Console.\n\nAccept the invitation:\n\n${url}`,
  };
}

/**
 * better-auth builds its own link with a `callbackURL`; flows pass theirs as "/?rt=<rt>" so the
 * return target can be read back here and put on our own page's link.
 */
export function returnTargetOf(betterAuthUrl: string): string | null {
  try {
    const callback = new URL(betterAuthUrl).searchParams.get("callbackURL");
    return callback ? new URL(callback, "http://x").searchParams.get("rt") : null;
  } catch {
    return null;
  }
}

/** The callbackURL a flow hands to better-auth to carry its `rt` (see returnTargetOf). */
export function callbackCarrying(rt: string | undefined): string | undefined {
  return rt ? `/?rt=${encodeURIComponent(rt)}` : undefined;
}
