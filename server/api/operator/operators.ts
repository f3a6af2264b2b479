import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Actor } from "../../platform/audit";
import { ApiError } from "../../platform/errors";
import type { OperatorRoles } from "../../platform/identity-gateway";
import { emailField } from "../fields";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { OPERATOR_ERRORS } from "./common";
import { installOperatorGuard, operatorRoute } from "./guard";

const OperatorSchema = z.object({ user_id: z.string(), email: z.string() }).meta({ id: "Operator" });

const email = emailField("email");

const GrantBodySchema = z.strictObject({ email }).meta({ id: "OperatorGrantBody" });
const RevokeParamsSchema = z.strictObject({ email });

/**
 * /v1/operator/operators: who the provider operators are, and granting or revoking the role. The
 * role is read from the user table on every operator call, so a change counts at once, in every
 * API process.
 */
export type OperatorRolesRouteDeps = OperatorRouteDeps & { roles: OperatorRoles };

export const operatorOperatorRoutes: FastifyPluginAsyncZod<OperatorRolesRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "manage provider operators");

  const change = async (address: string, grant: boolean, actor: Actor) => {
    // An operator may not revoke the last operator; the local credential (the command line) may,
    // as it may on the database: it can always grant the role again.
    const keepOne = actor.userId !== null;
    // Revoking the last operator is a domain refusal: the error handler answers it 409.
    const u = await deps.roles.set(address, grant, actor, { keepOne });
    if (!u) throw new ApiError("not_found", `No user with email ${address}.`);
    return { user_id: u.userId, email: u.email };
  };

  app.get(
    "/operator/operators",
    operatorRoute({
      summary: "List provider operators",
      description: "Provider operators only. Every user holding the operator role, by email.",
      response: {
        200: json("The operators", z.object({ operators: z.array(OperatorSchema) })),
        ...OPERATOR_ERRORS,
      },
    }),
    async () => ({
      operators: (await deps.roles.list()).map((o) => ({ user_id: o.userId, email: o.email })),
    }),
  );

  app.post(
    "/operator/operators",
    operatorRoute({
      summary: "Make a user a provider operator",
      description:
        "Provider operators only. The user (by email) may then call the operator API with their own " +
        "bearer token and impersonate users. Granting it again changes nothing. Audited (operator.granted).",
      body: GrantBodySchema,
      response: {
        200: json("The operator", OperatorSchema),
        ...OPERATOR_ERRORS,
        404: failure("No user with that email"),
      },
    }),
    async (req) => change(req.body.email, true, actorOf(req)),
  );

  app.delete(
    "/operator/operators/:email",
    operatorRoute({
      summary: "Stop a user being a provider operator",
      description:
        "Provider operators only. Their next operator call is refused (403). An operator cannot revoke " +
        "the last operator who can act (409): grant the role to another user first. Audited (operator.revoked).",
      params: RevokeParamsSchema,
      response: {
        200: json("The user, no longer an operator", OperatorSchema),
        ...OPERATOR_ERRORS,
        404: failure("No user with that email"),
        409: failure("The user is the last provider operator"),
      },
    }),
    async (req) => change(req.params.email, false, actorOf(req)),
  );
};
