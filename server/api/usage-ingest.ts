import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { MAX_EVENTS_PER_BATCH } from "../metering/events";
import { parseNdjson } from "../metering/import";
import { ingestUsage } from "../metering/ingest";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import { forbidden } from "./access";
import { isOrgAdmin, type Principal } from "./principal";
import type { Router } from "./route";
import { ErrorSchema } from "./schemas";

const e = (description: string) => ({ description, schema: ErrorSchema });

// 10,000 events of about 1 KiB each, with room to spare.
const BODY_LIMIT = 16 * 1024 * 1024;

export const UsageBatchSchema = z
  .strictObject({
    events: z
      .array(
        z.unknown().meta({
          description:
            "A usage event: event_id (idempotency key), occurred_at (ISO 8601), operation, eval_type, " +
            "and optionally workspace_uuid, eval_uuid, eval_run_uuid, name, modality, is_jailbreak, " +
            "has_ground_truth, created_by, quantity (default 1), rule_metric (eval|prompt, default eval), " +
            "cost + notes (price adjustments only). Each event is validated on its own.",
        }),
        { error: "events must be an array of usage events." },
      )
      .max(MAX_EVENTS_PER_BATCH, {
        error: `A batch holds at most ${MAX_EVENTS_PER_BATCH} events; split it into several calls.`,
      }),
  })
  .meta({ id: "UsageEventBatch" });

export const UsageIngestResultSchema = z
  .object({
    accepted: z.int().min(0).meta({ description: "Events stored by this call." }),
    duplicates: z.int().min(0).meta({
      description:
        "Events whose event_id the organization already has (or repeated in the batch); not stored again.",
    }),
    rejected: z.array(
      z.object({
        index: z.int().min(0).meta({ description: "Position of the event in the batch." }),
        event_id: z.string().nullable(),
        reason: z.string(),
      }),
    ),
  })
  .meta({ id: "UsageIngestResult" });

export const UsageIngestQuerySchema = z.strictObject({
  backfill: z
    .enum(["true", "false"], { error: 'backfill must be "true" or "false".' })
    .optional()
    .meta({ description: "Provider operators only: accept events in closed billing cycles." }),
  organization_uuid: z.string().min(1).optional().meta({
    description: "Provider operators only: the organization the events belong to (default: your own).",
  }),
});

export const NDJSON = "application/x-ndjson";

/** Usage is written by org API keys and administrators of the organization, nobody else. */
function requireUsageWriter(p: Principal) {
  if (!p.org) throw forbidden("You are not a member of an organization.");
  if (p.via === "api_key" && !p.orgKey)
    throw forbidden("Usage events are sent with an organization API key, not a personal one.");
  if (!isOrgAdmin(p))
    throw forbidden(
      "Only organization administrators (or their organization API keys) can send usage events.",
    );
  return p.org;
}

/**
 * The organization an operator call acts in. Backfills and other organizations are for provider
 * operators (bearer, not impersonating); anyone else gets a 403 that says so.
 */
async function operatorOrganization(
  p: Principal,
  gateway: IdentityGateway,
  query: z.output<typeof UsageIngestQuerySchema>,
): Promise<string> {
  const what =
    query.backfill === "true" ? "backfill closed billing cycles" : "send usage for another organization";
  if (p.via !== "bearer" || p.impersonatorUserId || !(await gateway.isOperator(p.userId)))
    throw forbidden(`Only provider operators (with their own bearer token) can ${what}.`);
  const orgId = query.organization_uuid ?? p.org?.org_id;
  if (!orgId)
    throw new ApiError(
      400,
      "invalid_request",
      "organization_uuid is required for an operator outside any organization.",
    );
  if (!(await gateway.findOrganization(orgId)))
    throw new ApiError(404, "not_found", "Organization not found.");
  return orgId;
}

/** POST /v1/usage/events: idempotent batch ingestion of priced usage events (JSON or NDJSON). */
export function registerUsageIngest(
  router: Router,
  deps: { db: Db; gateway: IdentityGateway; app: FastifyInstance },
) {
  // One event per line; a line that is not a JSON object becomes a rejected event, not a 400.
  deps.app.addContentTypeParser(NDJSON, { parseAs: "string", bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    done(null, { events: parseNdjson(body as string) });
  });
  router.route({
    method: "POST",
    path: "/v1/usage/events",
    tag: "Usage",
    summary: "Send a batch of usage events",
    description:
      `Up to ${MAX_EVENTS_PER_BATCH} events per call, each validated and priced on its own: one bad ` +
      "event never drops the others. An event is stored once per (organization, event_id); sending it " +
      "again counts it as a duplicate. Events more than 5 minutes in the future, in another " +
      "organization's workspace, or without a matching price rule are rejected with a reason. " +
      "Authenticate with an organization API key (x-api-key) of an Admin or Owner, or an " +
      "administrator's bearer token. Events in a closed billing cycle are rejected unless a provider " +
      "operator sends them with backfill=true. With Content-Type application/x-ndjson the body is one " +
      "event per line (blank lines skipped); a line that is not a JSON object is a rejected event at " +
      "its index, and the response is the same.",
    auth: "bearer_or_api_key",
    query: UsageIngestQuerySchema,
    body: UsageBatchSchema,
    bodyLimit: BODY_LIMIT,
    responses: {
      200: { description: "What happened to each event", schema: UsageIngestResultSchema },
      400: e("The body is not a batch of at most 10,000 events"),
      401: e("Not signed in"),
      403: e(
        "Not an organization administrator or an organization API key; or a backfill or another organization without being a provider operator",
      ),
      404: e("organization_uuid names no organization (operators)"),
      413: e("The body is larger than 16 MiB"),
    },
    async handler({ principal, body, query }) {
      const operator =
        query.backfill === "true" ||
        (query.organization_uuid !== undefined && query.organization_uuid !== principal.org?.org_id);
      const orgId = operator
        ? await operatorOrganization(principal, deps.gateway, query)
        : requireUsageWriter(principal).org_id;
      if (!body) throw new Error("unreachable: body is required");
      return ingestUsage(deps.db, orgId, body.events, { backfill: query.backfill === "true" });
    },
  });
}
