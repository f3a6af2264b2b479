import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { paging, sessionOf, signedIn } from "../fe/plumbing";
import { keyActorOf, refuseKeyCreationWhileImpersonating } from "../impersonation/writes";
import { createApiKeyService } from "./service";
import { EXPIRATION_OPTIONS, isExpirationOption } from "./token";

const tags = ["API keys"];

const createBody = z
  .object({
    org_id: z.string().min(1).max(100).optional(),
    // Checked separately: @propelauth/frontend-apis reports a bad option as bad_request
    // (its invalidExpirationOption case), other field problems as invalid_request_fields.
    expiration_option: z.unknown().optional(),
  })
  .strict();

const pageNumber = z.coerce.number().int().min(0).max(1_000_000).optional();
const listQuery = {
  page_number: pageNumber,
  page_size: z.coerce.number().int().min(1).max(100).optional(),
  api_key_search: z.string().max(64).optional(),
  sort_by: z.enum(["CreatedAtAsc", "CreatedAtDesc", "ExpiresAtAsc", "ExpiresAtDesc"]).optional(),
};
const personalQuery = z.object(listQuery).strict();
const orgQuery = z.object({ ...listQuery, org_id: z.string().min(1).max(100) }).strict();
const keyParams = z.object({ id: z.string() });

function toListQuery(q: z.infer<typeof personalQuery>) {
  const search = q.api_key_search?.trim();
  return { ...paging(q.page_number, q.page_size), ...(search ? { search } : {}), sort: q.sort_by };
}

/** Key lists are one user's own: never cached, refusals included. */
const noCache = async (_req: FastifyRequest, reply: FastifyReply) => {
  reply.header("cache-control", "no-store");
};

/** Identity client API keys under /api/fe/v3: POST /api_keys, DELETE /api_keys/:id, GET /personal_api_keys, GET /org_api_keys. */
export const apiKeyRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (scope, { ctx }) => {
  const keys = createApiKeyService(ctx.db, ctx.directory);
  const preValidation = signedIn(ctx);

  scope.post(
    "/api_keys",
    {
      // An operator acting as the user is refused before the body is looked at.
      preValidation: [preValidation, async (req) => refuseKeyCreationWhileImpersonating(sessionOf(req))],
      schema: { tags, summary: "Create an API key", body: createBody },
    },
    async (req) => {
      const session = sessionOf(req);
      const body = req.body;
      const option = body.expiration_option ?? "OneYear";
      if (!isExpirationOption(option))
        throw new IdentityError(
          "bad_request",
          `Invalid expiration option. Use one of ${EXPIRATION_OPTIONS.join(", ")}.`,
          { expiration_option: "Invalid expiration option." },
        );
      if (!session.user.emailVerified) throw new IdentityError("email_not_confirmed");
      return keys.create(keyActorOf(session), { orgId: body.org_id, expiration: option });
    },
  );

  scope.delete(
    "/api_keys/:id",
    { preValidation, schema: { tags, summary: "Delete an API key", params: keyParams } },
    async (req, reply) => {
      await keys.delete(keyActorOf(sessionOf(req)), req.params.id);
      return reply.status(200).send({});
    },
  );

  scope.get(
    "/personal_api_keys",
    {
      onRequest: noCache,
      preValidation,
      schema: { tags, summary: "The caller's personal API keys", querystring: personalQuery },
    },
    async (req) => keys.listPersonal(sessionOf(req).user.id, toListQuery(req.query)),
  );

  scope.get(
    "/org_api_keys",
    {
      onRequest: noCache,
      preValidation,
      schema: { tags, summary: "An organization's API keys", querystring: orgQuery },
    },
    async (req) => keys.listForOrg(sessionOf(req).user.id, req.query.org_id, toListQuery(req.query)),
  );
};
