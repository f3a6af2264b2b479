import { createHash, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { organization, user } from "../../db/schema/index";
import { isWellFormedToken } from "../api-keys/token";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { isProviderOperator } from "../impersonation/operators";
import { orgMemberInfo, userInfo } from "../session/access-tokens";
import { loadSigningKeys } from "../settings";
import { orgShape, validationResponse } from "./shapes";

const validateBody = z.object({ api_key_token: z.string().min(1).max(512) }).strict();
const idParam = z.string().min(1).max(100);

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
function fieldErrors400(reply: FastifyReply, fields: Record<string, string>) {
  const err = new IdentityError("invalid_request_fields", undefined, fields);
  const arrays = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, [v]]));
  return reply.status(400).send({ ...arrays, ...err.toJSON() });
}

/**
 * Backend API for servers (guarded by the backend secret): GET /api/v1/token_verification_metadata,
 * POST /api/backend/v1/end_user_api_keys/validate, and the read calls an API on a separate host
 * needs (user with orgs, organization, organization users).
 */
export function registerBackendApi(app: FastifyInstance, ctx: IdentityContext) {
  const expected = sha(ctx.backendApiKey);
  let publicPem: Promise<string> | null = null;

  void app.register(async (scope) => {
    // Compare digests in constant time: the secret's length and prefix must not leak via timing.
    scope.addHook("onRequest", async (req) => {
      const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
      if (!m?.[1] || !timingSafeEqual(sha(m[1]), expected))
        throw new IdentityError("not_logged_in", "A valid backend API key is required.", undefined, 401);
    });

    scope.get("/api/v1/token_verification_metadata", async () => {
      publicPem ??= loadSigningKeys(ctx.db).then((k) => k.publicPem);
      return { verifier_key_pem: await publicPem };
    });

    scope.post("/api/backend/v1/end_user_api_keys/validate", async (req, reply) => {
      const parsed = validateBody.safeParse(req.body ?? {});
      if (!parsed.success) {
        const fields: Record<string, string> = {};
        for (const issue of parsed.error.issues) {
          if (issue.code === "unrecognized_keys") for (const k of issue.keys) fields[k] ??= "Unknown field.";
          else fields[issue.path.join(".") || "api_key_token"] ??= issue.message;
        }
        return fieldErrors400(reply, fields);
      }
      const token = parsed.data.api_key_token.replace(/^Bearer\s+/i, "");
      if (!isWellFormedToken(token))
        return fieldErrors400(reply, { api_key_token: "Invalid API key format." });
      const found = await ctx.apiKeys.validate(token);
      if (!found) throw new IdentityError("not_found", "API key not found.");
      return validationResponse(found);
    });

    scope.get<{ Params: { userId: string } }>("/api/backend/v1/user/:userId", async (req) => {
      const found = await findById(req.params.userId, "user_not_found", (id) => ctx.directory.findUser(id));
      const memberships = await ctx.directory.listMemberships(found.id);
      return {
        ...userInfo(found),
        org_id_to_org_info: Object.fromEntries(memberships.map((m) => [m.orgId, orgMemberInfo(m)])),
      };
    });

    // Whether a user is a provider operator, for a product API on a separate host.
    scope.get<{ Params: { userId: string } }>("/api/backend/v1/user/:userId/operator", async (req) => {
      const id = idParam.safeParse(req.params.userId);
      if (!id.success) throw new IdentityError("user_not_found");
      return { user_id: id.data, is_operator: await isProviderOperator(ctx.db, id.data) };
    });

    // The user's access-token version, for a product API on a separate host (tokens carry `tv`);
    // enabled is false for a disabled user, whose tokens count at no version.
    scope.get<{ Params: { userId: string } }>("/api/backend/v1/user/:userId/token_version", async (req) => {
      const u = await findById(req.params.userId, "user_not_found", async (id) => {
        const [row] = await ctx.db
          .select({ id: user.id, version: user.tokenVersion, banned: user.banned })
          .from(user)
          .where(eq(user.id, id));
        return row;
      });
      return { user_id: u.id, token_version: u.version, enabled: !u.banned };
    });

    scope.get<{ Params: { orgId: string } }>("/api/backend/v1/org/:orgId", async (req) => {
      const o = await findById(req.params.orgId, "org_not_found", async (id) => {
        const [row] = await ctx.db.select().from(organization).where(eq(organization.id, id));
        return row;
      });
      return orgShape(o);
    });

    // All members in one page (organizations are capped at max_users); role_in_org is the
    // member's primary role in this organization.
    scope.get<{ Params: { orgId: string } }>("/api/backend/v1/user/org/:orgId", async (req) => {
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
    });
  });
}
