import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BillingError, resolveOrganization } from "../../metering/billing/billing";
import {
  createIngestKey,
  ingestKeyJson,
  listIngestKeys,
  revokeIngestKey,
} from "../../metering/ingestion/ingest-keys";
import { ApiError } from "../../platform/errors";
import { textField, uuidField } from "../fields";
import type { IngestRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { installOperatorGuard, operatorRoute } from "./guard";

export const DEFAULT_INGEST_KEY_NAME = "Ingestion key";

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

const NewIngestKeySchema = IngestKeySchema.extend({ token: z.string() }).meta({ id: "NewIngestKey" });

const CreateBodySchema = z.strictObject({
  name: textField("name", 200).optional(),
  organization: textField("organization", 200)
    .optional()
    .meta({ description: "uuid, slug or name of the one organization the key may write; omit for all." }),
});

const KeyParamsSchema = z.strictObject({
  ingest_key_uuid: uuidField("ingest_key_uuid"),
});

const common = {
  401: failure("No bearer token, or one that is not valid"),
  403: failure("Not a provider operator"),
};

/**
 * /v1/operator/ingest-keys: ingestion keys for the eval services, for provider operators (their own
 * bearer token, or the backend API key, with which the CLI reaches a running server on the
 * embedded database).
 */
export const operatorIngestKeyRoutes: FastifyPluginAsyncZod<IngestRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "manage ingestion keys");

  app.get(
    "/operator/ingest-keys",
    operatorRoute({
      summary: "List ingestion keys",
      description: "Provider operators only. Every key, revoked ones too; never a token.",
      response: { 200: json("The keys", z.array(IngestKeySchema)), ...common },
    }),
    async () => (await listIngestKeys(deps.db)).map(ingestKeyJson),
  );

  app.post(
    "/operator/ingest-keys",
    operatorRoute({
      summary: "Create an ingestion key",
      description:
        "Provider operators only. The token (eci_...) is in this answer only; the server keeps its SHA-256.",
      body: CreateBodySchema,
      response: {
        200: json("The new key and its token", NewIngestKeySchema),
        400: failure("Invalid request"),
        ...common,
        404: failure("No such organization"),
      },
    }),
    async (req) => {
      let organizationUuid: string | null = null;
      if (req.body.organization) {
        try {
          organizationUuid = (await resolveOrganization(deps.db, req.body.organization)).id;
        } catch (err) {
          if (err instanceof BillingError) throw new ApiError("not_found", err.message);
          throw err;
        }
      }
      const { key, token } = await createIngestKey(deps.db, {
        name: req.body.name ?? DEFAULT_INGEST_KEY_NAME,
        organizationUuid,
        by: actorOf(req),
      });
      return { ...ingestKeyJson(key), token };
    },
  );

  app.post(
    "/operator/ingest-keys/:ingest_key_uuid/revoke",
    operatorRoute({
      summary: "Revoke an ingestion key",
      description:
        "Provider operators only. This server refuses the key at once, other API processes within 5 s.",
      params: KeyParamsSchema,
      response: {
        200: json("The revoked key", IngestKeySchema),
        400: failure("Invalid request"),
        ...common,
        404: failure("No such key"),
        409: failure("Already revoked"),
      },
    }),
    async (req) => {
      const r = await revokeIngestKey(deps.db, req.params.ingest_key_uuid, actorOf(req));
      deps.ingestKeys.forget();
      if (r.status === "not_found") throw new ApiError("not_found", "Ingestion key not found.");
      if (r.status === "already_revoked") throw new ApiError("already_revoked");
      return ingestKeyJson(r.key);
    },
  );
};
