import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { feRoutes, paging, parseInput, requireSession } from "../fe/plumbing";
import { keyActorOf, refuseKeyCreationWhileImpersonating } from "../impersonation/writes";
import { createApiKeyService } from "./service";
import { EXPIRATION_OPTIONS, isExpirationOption } from "./token";

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

function toListQuery(q: z.infer<typeof personalQuery>) {
  const search = q.api_key_search?.trim();
  return { ...paging(q.page_number, q.page_size), ...(search ? { search } : {}), sort: q.sort_by };
}

/** Identity client API keys under /api/fe/v3: POST /api_keys, DELETE /api_keys/:id, GET /personal_api_keys, GET /org_api_keys. */
export function registerApiKeyRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const keys = createApiKeyService(ctx.db, ctx.directory);

  feRoutes(app, (scope) => {
    scope.post("/api_keys", async (req) => {
      const session = await requireSession(ctx, req);
      refuseKeyCreationWhileImpersonating(session);
      const { user } = session;
      const actor = keyActorOf(session);
      const body = parseInput(createBody, req.body);
      const option = body.expiration_option ?? "OneYear";
      if (!isExpirationOption(option))
        throw new IdentityError(
          "bad_request",
          `Invalid expiration option. Use one of ${EXPIRATION_OPTIONS.join(", ")}.`,
          { expiration_option: "Invalid expiration option." },
        );
      if (!user.emailVerified) throw new IdentityError("email_not_confirmed");
      return keys.create(actor, { orgId: body.org_id, expiration: option });
    });

    scope.delete<{ Params: { id: string } }>("/api_keys/:id", async (req, reply) => {
      const session = await requireSession(ctx, req);
      await keys.delete(keyActorOf(session), req.params.id);
      return reply.status(200).send({});
    });

    scope.get("/personal_api_keys", async (req, reply) => {
      reply.header("cache-control", "no-store");
      const { user } = await requireSession(ctx, req);
      return keys.listPersonal(user.id, toListQuery(parseInput(personalQuery, req.query)));
    });

    scope.get("/org_api_keys", async (req, reply) => {
      reply.header("cache-control", "no-store");
      const { user } = await requireSession(ctx, req);
      const q = parseInput(orgQuery, req.query);
      return keys.listForOrg(user.id, q.org_id, toListQuery(q));
    });
  });
}
