import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { BillingError, resolveOrganization } from "../metering/billing";
import { isStorableText } from "../metering/events";
import {
  createIngestKey,
  type IngestKeyVerifier,
  ingestKeyJson,
  listIngestKeys,
  revokeIngestKey,
} from "../metering/ingest-keys";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import { createBearerCallerAuth, notOperator } from "./operator-auth";
import type { Router } from "./route";
import { ErrorSchema } from "./schemas";

export const DEFAULT_INGEST_KEY_NAME = "Ingestion key";

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .trim()
    .min(1, { error: `${field} must not be empty.` })
    .max(max, { error: `${field} must be at most ${max} characters.` })
    .refine(isStorableText, { error: `${field} must not contain NUL characters or unpaired surrogates.` });

const IngestKeySchema = z
  .object({
    ingest_key_uuid: z.uuid(),
    name: z.string(),
    organization_uuid: z
      .string()
      .nullable()
      .meta({ description: "The one organization the key sends usage for; null: all organizations." }),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "IngestKey" });

const CreateBodySchema = z.strictObject({
  name: text("name", 200).optional(),
  organization: text("organization", 200)
    .optional()
    .meta({ description: "uuid, slug or name of the one organization the key may write; omit for all." }),
});

const KeyParamsSchema = z.strictObject({
  ingest_key_uuid: z.uuid({ error: "ingest_key_uuid must be a UUID." }),
});

const e = (description: string) => ({ description, schema: ErrorSchema });
const common = {
  401: e("No bearer token, or one that is not valid"),
  403: e("Not a provider operator"),
};

/**
 * /v1/operator/ingest-keys: ingestion keys for the eval services, for provider operators (their own
 * bearer token, or the backend API key, with which the CLI reaches a running server on the
 * embedded database).
 */
export function registerOperatorIngestKeys(
  router: Router,
  deps: { db: Db; gateway: IdentityGateway; ingestKeys: IngestKeyVerifier; operatorKey?: string },
) {
  const identify = createBearerCallerAuth(deps.gateway, router.authenticate, deps.operatorKey);
  const operators = new WeakSet<FastifyRequest>();
  const onRequest = async (req: FastifyRequest) => {
    if ((await identify(req)).kind !== "operator") throw notOperator("manage ingestion keys");
    operators.add(req);
  };
  const assertOperator = (req: FastifyRequest) => {
    if (!operators.has(req)) throw new Error("unreachable: authenticated in onRequest");
  };

  router.route({
    method: "GET",
    path: "/v1/operator/ingest-keys",
    tag: "Operator",
    summary: "List ingestion keys",
    description: "Provider operators only. Every key, revoked ones too; never a token.",
    auth: "bearer",
    onRequest,
    responses: { 200: { description: "The keys", schema: z.array(IngestKeySchema) }, ...common },
    async handler({ req }) {
      assertOperator(req);
      return (await listIngestKeys(deps.db)).map(ingestKeyJson);
    },
  });

  router.route({
    method: "POST",
    path: "/v1/operator/ingest-keys",
    tag: "Operator",
    summary: "Create an ingestion key",
    description:
      "Provider operators only. The token (eci_...) is in this answer only; the server keeps its SHA-256.",
    auth: "bearer",
    onRequest,
    body: CreateBodySchema,
    responses: {
      200: {
        description: "The new key and its token",
        schema: IngestKeySchema.extend({ token: z.string() }).meta({ id: "NewIngestKey" }),
      },
      400: e("Invalid request"),
      ...common,
      404: e("No such organization"),
    },
    async handler({ req, body }) {
      assertOperator(req);
      let organizationUuid: string | null = null;
      if (body?.organization) {
        try {
          organizationUuid = (await resolveOrganization(deps.db, body.organization)).id;
        } catch (err) {
          if (err instanceof BillingError) throw new ApiError(404, "not_found", err.message);
          throw err;
        }
      }
      const { key, token } = await createIngestKey(deps.db, {
        name: body?.name ?? DEFAULT_INGEST_KEY_NAME,
        organizationUuid,
      });
      return { ...ingestKeyJson(key), token };
    },
  });

  router.route({
    method: "POST",
    path: "/v1/operator/ingest-keys/{ingest_key_uuid}/revoke",
    tag: "Operator",
    summary: "Revoke an ingestion key",
    description:
      "Provider operators only. This server refuses the key at once, other API processes within 5 s.",
    auth: "bearer",
    onRequest,
    params: KeyParamsSchema,
    responses: {
      200: { description: "The revoked key", schema: IngestKeySchema },
      400: e("Invalid request"),
      ...common,
      404: e("No such key"),
      409: e("Already revoked"),
    },
    async handler({ req, params }) {
      assertOperator(req);
      const r = await revokeIngestKey(deps.db, params.ingest_key_uuid);
      deps.ingestKeys.forget();
      if (r.status === "not_found") throw new ApiError(404, "not_found", "Ingestion key not found.");
      if (r.status === "already_revoked")
        throw new ApiError(409, "already_revoked", "The ingestion key is already revoked.");
      return ingestKeyJson(r.key);
    },
  });
}
