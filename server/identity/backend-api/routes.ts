import { createHash, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { organization, user } from "../../db/schema/index";
import { isWellFormedToken } from "../api-keys/token";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { isProviderOperator } from "../impersonation/operators";
import { type IdentityUser, orgMemberInfo, userInfo } from "../session/access-tokens";
import { loadSigningKeys } from "../settings";
import { identityValidator } from "../validation";
import { orgShape, validationResponse } from "./shapes";

const validateBody = z.object({ api_key_token: z.string().min(1).max(512) }).strict();
const idParam = z.string().min(1).max(100);
// Path ids are looked up as they come: one that cannot be an id is not found (404), not a 400.
const userParams = z.object({ userId: z.string() });
const orgParams = z.object({ orgId: z.string() });
// PropelAuth's "fetch user by email": an address that cannot be one is not found (404), like an id.
const byEmailQuery = z
  .object({ email: z.string(), include_orgs: z.enum(["true", "false"]).optional() })
  .strict();
const tags = ["Backend"];

/** What `find` returns for a path id; `missing` when it finds nothing or the id cannot be one. */
async function findById<T>(
  raw: string,
  missing: "user_not_found" | "org_not_found",
  find: (id: string) => Promise<T | null | undefined>,
): Promise<T> {
  const id = idParam.safeParse(raw);
  const found = id.success ? await find(id.data) : null;
  if (!found) throw new IdentityError(missing);
  return found;
}
const sha = (s: string) => createHash("sha256").update(s).digest();

/**
 * The SDKs read a 400 here as {field: [messages]} (e.g. {"api_key_token": [...]}); the identity
 * error fields ride along so generic clients still see error_code.
 */
function fieldErrors400(reply: FastifyReply, err: IdentityError) {
  const arrays = Object.fromEntries(Object.entries(err.fieldErrors ?? {}).map(([k, v]) => [k, [v]]));
  return reply.status(400).send({ ...arrays, ...err.toJSON() });
}

/**
 * Backend API for servers (guarded by the backend secret): GET /api/v1/token_verification_metadata,
 * POST /api/backend/v1/end_user_api_keys/validate, and the read calls an API on a separate host
 * needs (user with orgs, by id or by email, organization, organization users).
 */
export const backendRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (scope, { ctx }) => {
  const expected = sha(ctx.backendApiKey);
  let publicPem: Promise<string> | null = null;
  // A refused body of the one call that takes one names its one field, in the SDKs' shape too.
  scope.setValidatorCompiler(identityValidator("api_key_token"));
  scope.setErrorHandler((err, _req, reply) => {
    if (err instanceof IdentityError && err.code === "invalid_request_fields")
      return fieldErrors400(reply, err);
    throw err;
  });

  // Compare digests in constant time: the secret's length and prefix must not leak via timing.
  scope.addHook("onRequest", async (req) => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    if (!m?.[1] || !timingSafeEqual(sha(m[1]), expected))
      throw new IdentityError("not_logged_in", "A valid backend API key is required.", undefined, 401);
  });

  /** A user as PropelAuth's backend API gives them, with their organizations. */
  const withOrgs = async (found: IdentityUser) => {
    const memberships = await ctx.directory.listMemberships(found.id);
    return {
      ...userInfo(found),
      org_id_to_org_info: Object.fromEntries(memberships.map((m) => [m.orgId, orgMemberInfo(m)])),
    };
  };

  const keyInfo = { tags, summary: "The public key that verifies access tokens" };
  scope.get("/api/v1/token_verification_metadata", { schema: keyInfo }, async () => {
    publicPem ??= loadSigningKeys(ctx.db).then((k) => k.publicPem);
    return { verifier_key_pem: await publicPem };
  });

  const validate = { tags, summary: "Validate an end user's API key", body: validateBody };
  scope.post("/api/backend/v1/end_user_api_keys/validate", { schema: validate }, async (req, reply) => {
    const token = req.body.api_key_token.replace(/^Bearer\s+/i, "");
    if (!isWellFormedToken(token))
      return fieldErrors400(
        reply,
        new IdentityError("invalid_request_fields", undefined, {
          api_key_token: "Invalid API key format.",
        }),
      );
    const found = await ctx.apiKeys.validate(token);
    if (!found) throw new IdentityError("not_found", "API key not found.");
    return validationResponse(found);
  });

  scope.get(
    "/api/backend/v1/user/:userId",
    { schema: { tags, summary: "A user with their organizations", params: userParams } },
    async (req) => {
      const found = await findById(req.params.userId, "user_not_found", (id) => ctx.directory.findUser(id));
      return withOrgs(found);
    },
  );

  // A user by email (stored in lower case; one row by its unique index), with their organizations
  // when include_orgs=true: what a product API on a separate host needs to add a workspace member.
  scope.get(
    "/api/backend/v1/user/email",
    {
      schema: {
        tags,
        summary: "A user by email, with their organizations on request",
        querystring: byEmailQuery,
      },
    },
    async (req) => {
      const found = await ctx.directory.findUserByEmail(req.query.email.trim());
      if (!found) throw new IdentityError("user_not_found");
      return req.query.include_orgs === "true" ? withOrgs(found) : userInfo(found);
    },
  );

  // Whether a user is a provider operator, for a product API on a separate host.
  scope.get(
    "/api/backend/v1/user/:userId/operator",
    { schema: { tags, summary: "Whether a user is a provider operator", params: userParams } },
    async (req) => {
      const id = idParam.safeParse(req.params.userId);
      if (!id.success) throw new IdentityError("user_not_found");
      return { user_id: id.data, is_operator: await isProviderOperator(ctx.db, id.data) };
    },
  );

  // The user's access-token version, for a product API on a separate host (tokens carry `tv`);
  // enabled is false for a disabled user, whose tokens count at no version.
  scope.get(
    "/api/backend/v1/user/:userId/token_version",
    { schema: { tags, summary: "A user's access-token version", params: userParams } },
    async (req) => {
      const u = await findById(req.params.userId, "user_not_found", async (id) => {
        const [row] = await ctx.db
          .select({ id: user.id, version: user.tokenVersion, banned: user.banned })
          .from(user)
          .where(eq(user.id, id));
        return row;
      });
      return { user_id: u.id, token_version: u.version, enabled: !u.banned };
    },
  );

  scope.get(
    "/api/backend/v1/org/:orgId",
    { schema: { tags, summary: "An organization", params: orgParams } },
    async (req) => {
      const o = await findById(req.params.orgId, "org_not_found", async (id) => {
        const [row] = await ctx.db.select().from(organization).where(eq(organization.id, id));
        return row;
      });
      return orgShape(o);
    },
  );

  // All members in one page (organizations are capped at max_users); role_in_org is the
  // member's primary role in this organization.
  scope.get(
    "/api/backend/v1/user/org/:orgId",
    { schema: { tags, summary: "An organization's users", params: orgParams } },
    async (req) => {
      const org = await findById(req.params.orgId, "org_not_found", (id) =>
        ctx.directory.findOrganization(id),
      );
      const users = await ctx.directory.listOrganizationUsers(org.org_id);
      return {
        users: users.map((u) => ({ user_id: u.user_id, email: u.email, role_in_org: u.role })),
        total_users: users.length,
        current_page: 0,
        page_size: users.length,
        has_more_results: false,
      };
    },
  );
};
