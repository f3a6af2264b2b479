import type { FastifyRequest } from "fastify";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";

type Rule = { limit: number; windowSeconds: number };

// Counted in the database (identity.rate_limit_bucket), so every instance shares them. Per-email
// limits stop one account being hammered from many addresses; per-IP limits stop one client
// spraying many accounts. The per-email login limit sits above the lock-out threshold so the
// lock-out (with its clearer message) is what a password guesser meets first.
export const LIMITS = {
  loginPerIp: { limit: 60, windowSeconds: 600 },
  loginPerEmail: { limit: 30, windowSeconds: 900 },
  mfaPerIp: { limit: 30, windowSeconds: 600 },
  emailPerAddress: { limit: 3, windowSeconds: 900 },
  emailPerIp: { limit: 20, windowSeconds: 900 },
  resendConfirmation: { limit: 1, windowSeconds: 60 },
  signupPerIp: { limit: 20, windowSeconds: 3600 },
  emailChangePerUser: { limit: 1, windowSeconds: 60 },
} as const satisfies Record<string, Rule>;

/** Lock-out: this many failed password sign-ins for one email within the window lock it. */
export const LOCKOUT = { failures: 10, windowSeconds: 900 } as const;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const clientIp = (req: FastifyRequest) => req.ip || "unknown";

/** Counts one hit; over the limit throws rate_limit_exceeded carrying Retry-After. */
export async function enforce(ctx: IdentityContext, key: string, rule: Rule, code = "rate_limit_exceeded") {
  const r = await ctx.limiter.hit(key, rule.limit, rule.windowSeconds);
  if (r.allowed) return;
  const retry = String(r.retryAfterSeconds);
  if (code === "confirmation_email_sent")
    throw new IdentityError("confirmation_email_sent", undefined, { retry_after_seconds: retry });
  throw new IdentityError("rate_limit_exceeded", undefined, { retry_after_seconds: retry });
}
