import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { type Actor, CLI_ACTOR } from "../../platform/audit";
import { ApiError } from "../../platform/errors";
import type { IdentityGateway, OrgMemberInfo } from "../../platform/identity-gateway";
import type { Authenticate, Principal } from "../principal";

/**
 * Who sent a call that operators may make: a provider operator (their own bearer token, not
 * impersonating, or the deployment's backend API key as bearer: the server-to-server secret the
 * CLI uses to reach a running server) or a customer (any other valid bearer token).
 */
export type BearerCaller =
  | { kind: "operator"; actor: Actor; org: OrgMemberInfo | null }
  | { kind: "customer"; principal: Principal };

const sha = (s: string) => createHash("sha256").update(s).digest();

/**
 * Reads `Authorization: Bearer …` as an operator or a customer; 401 when it is missing or not valid.
 * `operatorKey` is the backend API key (BACKEND_API_KEY or the one identity stored).
 */
export function createBearerCallerAuth(
  gateway: IdentityGateway,
  authenticate: Authenticate,
  operatorKey: string | undefined,
) {
  const expected = operatorKey ? sha(operatorKey) : null;
  return async function identify(req: FastifyRequest): Promise<BearerCaller> {
    const header = req.headers.authorization;
    const token = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    if (token && expected && timingSafeEqual(sha(token), expected))
      return {
        kind: "operator",
        actor: CLI_ACTOR,
        org: null,
      };
    const p = await authenticate(req, { apiKey: false });
    if (p.impersonatorUserId || !(await gateway.isOperator(p.userId)))
      return { kind: "customer", principal: p };
    return {
      kind: "operator",
      actor: { userId: p.userId, email: p.email, source: "console" },
      org: p.org,
    };
  };
}

export type BearerCallerAuth = ReturnType<typeof createBearerCallerAuth>;

export const notOperator = (what: string) =>
  new ApiError("forbidden", `Only provider operators (with their own bearer token) can ${what}.`);
