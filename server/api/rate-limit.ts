import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "../platform/errors";
import type { RateDecision, RateLimits } from "../platform/rate-limits";
import type { Authenticate, Principal } from "./principal";

/** Requests per minute; 0 turns a limit off. */
export type ApiRateLimits = { perCredential: number; perOrg: number };

/** Defaults of API_RATE_LIMIT_PER_CREDENTIAL and API_RATE_LIMIT_PER_ORG (requests per minute). */
export const DEFAULT_API_RATE_LIMITS: ApiRateLimits = { perCredential: 6_000, perOrg: 30_000 };

const MINUTE = 60;

/**
 * Sends the RateLimit-Limit, -Remaining and -Reset headers (and Retry-After when refused) of the
 * decision recorded for a request in the returned map, on every answer of `app`'s scope.
 */
export function sendRateLimitHeaders(app: FastifyInstance): WeakMap<FastifyRequest, RateDecision> {
  const decided = new WeakMap<FastifyRequest, RateDecision>();
  app.addHook("onSend", async (req, reply, payload) => {
    const d = decided.get(req);
    if (!d) return payload;
    reply.header("ratelimit-limit", String(d.limit));
    reply.header("ratelimit-remaining", String(d.remaining));
    reply.header("ratelimit-reset", String(d.resetSeconds));
    if (!d.allowed) reply.header("retry-after", String(d.resetSeconds));
    return payload;
  });
  return decided;
}

/**
 * Counts a call against a credential's limit, then (unless that refused it) its organization's;
 * answers the tighter decision, or undefined when both limits are off.
 */
export async function decideRate(
  limiter: RateLimits,
  credential: { key: string; limit: number },
  org: { key: string; limit: number } | null,
): Promise<RateDecision | undefined> {
  let tightest: RateDecision | undefined;
  if (credential.limit > 0)
    tightest = await limiter.hit(credential.key, { limit: credential.limit, windowSeconds: MINUTE });
  if (org && org.limit > 0 && tightest?.allowed !== false) {
    const o = await limiter.hit(org.key, { limit: org.limit, windowSeconds: MINUTE });
    // The refused limit if any, else the one with the fewest calls left.
    if (!tightest || !o.allowed || o.remaining < tightest.remaining) tightest = o;
  }
  return tightest;
}

export const rateLimitError = (d: RateDecision) =>
  new ApiError(
    "rate_limited",
    `Too many requests: at most ${d.limit} a minute. Try again in ${d.resetSeconds} s.`,
  );

/**
 * The credential a principal proved: its user for bearer tokens, the key itself for API keys (by
 * its id, which the validation already answered, rather than hashing the secret once more per
 * call; by a hash of it only if identity on another host did not send the id).
 */
function credentialKey(req: FastifyRequest, p: Principal): string {
  if (p.via === "api_key" && p.apiKeyId) return `key:${p.apiKeyId}`;
  if (p.via === "api_key") {
    const raw = req.headers["x-api-key"];
    const key = typeof raw === "string" ? raw.trim() : "";
    return `key:${createHash("sha256").update(key).digest("base64url").slice(0, 32)}`;
  }
  return `user:${p.userId}`;
}

/**
 * Rate limits per credential and per organization on the product API: wraps the router's
 * authenticator so every authenticated call is counted once it is known who makes it, answers 429
 * with Retry-After when a limit is reached, and sends the IETF draft's RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset headers (of the tighter limit) on every counted answer.
 */
export function installApiRateLimits(
  app: FastifyInstance,
  limiter: RateLimits,
  limits: ApiRateLimits,
  authenticate: Authenticate,
): Authenticate {
  if (limits.perCredential <= 0 && limits.perOrg <= 0) return authenticate;
  const decided = sendRateLimitHeaders(app);

  return async function rateLimited(req, opts) {
    const principal = await authenticate(req, opts);
    // The credential first: a call it refuses is not counted against the organization.
    const tightest = await decideRate(
      limiter,
      { key: credentialKey(req, principal), limit: limits.perCredential },
      principal.org ? { key: `org:${principal.org.org_id}`, limit: limits.perOrg } : null,
    );
    if (tightest) decided.set(req, tightest);
    if (tightest && !tightest.allowed) throw rateLimitError(tightest);
    return principal;
  };
}
