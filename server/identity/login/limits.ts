import type { FastifyRequest } from "fastify";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";

type Rule = { limit: number; windowSeconds: number };

// Counted in the shared rate-limit store (platform/rate-limits.ts), so every instance shares them. Per-IP
// limits stop one client spraying many accounts; wrong passwords for one account are counted per
// (account, source) and per account in lockout.ts, so nobody can lock an owner out from afar.
export const LIMITS = {
  loginPerIp: { limit: 60, windowSeconds: 600 },
  mfaPerIp: { limit: 30, windowSeconds: 600 },
  emailPerAddress: { limit: 3, windowSeconds: 900 },
  emailPerIp: { limit: 20, windowSeconds: 900 },
  resendConfirmation: { limit: 1, windowSeconds: 60 },
  signupPerIp: { limit: 20, windowSeconds: 3600 },
  emailChangePerUser: { limit: 1, windowSeconds: 60 },
} as const satisfies Record<string, Rule>;

/** This many wrong passwords for one email from one source within the window hold that source back. */
export const LOCKOUT = { failures: 10, windowSeconds: 900 } as const;

/**
 * This many wrong passwords for one email from all sources within the window lock the account
 * for `lockSeconds` (an unlock link is emailed). One source can add at most LOCKOUT.failures per
 * LOCKOUT window, so 30 in this window: alone it never reaches the lock.
 */
export const ACCOUNT_LOCK = { failures: 50, windowSeconds: 1800, lockSeconds: 3600 } as const;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const clientIp = (req: FastifyRequest) => req.ip || "unknown";

/** Counts one hit; over the limit throws rate_limit_exceeded carrying Retry-After. */
export async function enforce(ctx: IdentityContext, key: string, rule: Rule, code = "rate_limit_exceeded") {
  const r = await ctx.limiter.hit(key, rule);
  if (r.allowed) return;
  const retry = String(r.resetSeconds);
  if (code === "confirmation_email_sent")
    throw new IdentityError("confirmation_email_sent", undefined, { retry_after_seconds: retry });
  throw new IdentityError("rate_limit_exceeded", undefined, { retry_after_seconds: retry });
}
