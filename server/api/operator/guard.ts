import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Actor } from "../../platform/audit";
import type { IdentityGateway } from "../../platform/identity-gateway";
import type { Authenticate } from "../principal";
import { createBearerCallerAuth, notOperator } from "./auth";

/** What an operator route plugin needs to know who calls it. */
export type OperatorGuardDeps = {
  gateway: IdentityGateway;
  authenticate: Authenticate;
  /** The running server's local operator credential (the backend API key), if any. */
  operatorKey?: string;
};

/**
 * Makes every route of the plugin `app` operator-only: an onRequest hook admits a provider
 * operator's own bearer token (not while impersonating) or the local operator credential, and
 * answers 401 without a valid token and 403 to customers. Returns `actorOf(req)`, the operator
 * behind a call, for the audit rows of its changes. Routes declare
 * `config: { auth: "bearer", authenticatesItself: true }` (OPERATOR_ROUTE_CONFIG).
 */
export function installOperatorGuard(app: FastifyInstance, deps: OperatorGuardDeps, what: string) {
  const identify = createBearerCallerAuth(deps.gateway, deps.authenticate, deps.operatorKey);
  const operators = new WeakMap<FastifyRequest, Actor>();
  app.addHook("onRequest", async (req) => {
    const caller = await identify(req);
    if (caller.kind !== "operator") throw notOperator(what);
    operators.set(req, caller.actor);
  });
  return function actorOf(req: FastifyRequest): Actor {
    const actor = operators.get(req);
    // The hook ran before any handler; a missing actor is our bug, not the caller's.
    if (!actor) throw new Error("operator route reached without the operator guard");
    return actor;
  };
}

/** The route config of operator routes: the guard above authenticates, not the shared hook. */
export const OPERATOR_ROUTE_CONFIG = { auth: "bearer", authenticatesItself: true } as const;

export const OPERATOR_TAGS = ["Operator"];

/** The options of an operator route: its config and its schema, filed under the Operator tag. */
export const operatorRoute = <S extends object>(schema: S) => ({
  config: OPERATOR_ROUTE_CONFIG,
  schema: { tags: OPERATOR_TAGS, ...schema },
});
