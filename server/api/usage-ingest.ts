import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { USAGE_WATERMARK_HEADER } from "../../contract/usage-completeness";
import { isStorableText } from "../metering/ingestion/events";
import { parseNdjson } from "../metering/ingestion/import";
import { ingestUsage } from "../metering/ingestion/ingest";
import { isIngestKeyToken } from "../metering/ingestion/ingest-keys";
import {
  EARLIEST_OCCURRED_AT,
  INGEST_BODY_LIMIT,
  MAX_EVENT_COST_USD,
  MAX_EVENTS_PER_BATCH,
  MAX_FUTURE_MS,
  MAX_QUANTITY,
} from "../metering/ingestion/limits";
import { databaseNow, recordWatermark, senderWatermark, storedSince } from "../metering/ingestion/watermarks";
import type { Actor } from "../platform/audit";
import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import type { RateLimits } from "../platform/rate-limits";
import { runAsTenant } from "../platform/tenant-scope";
import { forbidden } from "./access";
import { type BearerCaller, createBearerCallerAuth, notOperator } from "./operator/auth";
import { decideRate, rateLimitError, sendRateLimitHeaders } from "./rate-limit";
import type { IngestRouteDeps } from "./route-deps";
import { failure, json } from "./schemas";

const UsageBatchSchema = z
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

const UsageIngestResultSchema = z
  .object({
    accepted: z.int().min(0).meta({
      description: "Events stored by this call, those awaiting pricing (awaiting_pricing) included.",
    }),
    awaiting_pricing: z
      .int()
      .min(0)
      .meta({
        description:
          "Of the accepted events, those no price rule matches yet: kept (a resend is a duplicate), counted " +
          "apart from the bill, and priced as soon as a provider operator sets a rule that covers them.",
      }),
    late: z.int().min(0).meta({
      description:
        "Of the accepted events, those whose day lies in a closed billing cycle: a closed cycle never changes, so they are billed in the open cycle as late usage, priced at their time and marked with their period (late_from in the records).",
    }),
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

/**
 * The completeness watermark a sender may send with a batch: an instant (ISO 8601 with an offset)
 * no later than the future events may be dated and no earlier than any event may be.
 */
const UsageIngestHeadersSchema = z.looseObject({
  [USAGE_WATERMARK_HEADER.toLowerCase()]: z.iso
    .datetime({
      offset: true,
      error: `${USAGE_WATERMARK_HEADER} must be an ISO 8601 date-time, e.g. 2026-11-27T12:00:00Z.`,
    })
    .refine((v) => Date.parse(v) <= Date.now() + MAX_FUTURE_MS, {
      error: `${USAGE_WATERMARK_HEADER} must not be more than 5 minutes in the future.`,
    })
    .refine((v) => Date.parse(v) >= EARLIEST_OCCURRED_AT.getTime(), {
      error: `${USAGE_WATERMARK_HEADER} must not be before ${EARLIEST_OCCURRED_AT.toISOString().slice(0, 10)}.`,
    })
    .optional()
    .meta({
      description:
        "The sender has sent every event up to this time (this batch included). Moves the sender's completeness " +
        "watermark forward (never back): GET /v1/usage/completeness and the dashboard then say complete through it, " +
        "and events the sender still stores for earlier times are counted as late.",
    }),
});

const UsageIngestQuerySchema = z.strictObject({
  backfill: z.enum(["true", "false"], { error: 'backfill must be "true" or "false".' }).optional().meta({
    description:
      "Provider operators only: accept events in closed billing cycles (not before the first cycle).",
  }),
  organization_uuid: z
    .string()
    .min(1)
    .max(200)
    .refine(isStorableText, { error: "organization_uuid must not contain NUL characters." })
    .optional()
    .meta({
      description:
        "The organization the events belong to: required with an all-organizations ingestion key (and " +
        "for operators without an organization of their own); with a key scoped to one organization it " +
        "may only name that one.",
    }),
});

const NDJSON = "application/x-ndjson";

/** Who sends a batch: an ingestion key (an eval service) or a provider operator. */
/**
 * Ingestion calls per minute per ingestion key and per organization (0: off), shared by every API
 * process (INGEST_RATE_LIMIT_PER_KEY, INGEST_RATE_LIMIT_PER_ORG). A call carries up to 10,000
 * events, so the defaults — 100 and 200 calls a second — are far above what a busy eval service
 * sends, and far below what one key can make a server do to everyone else.
 */
export type IngestRateLimits = { perKey: number; perOrg: number };
export const DEFAULT_INGEST_RATE_LIMITS: IngestRateLimits = { perKey: 6_000, perOrg: 12_000 };

type Sender =
  | { kind: "ingest_key"; organizationUuid: string | null; token: string; keyUuid: string }
  | { kind: "operator"; actor: Actor; ownOrg: string | null };

const CUSTOMER_REFUSED =
  "Usage is sent by the provider's eval services with an ingestion key (x-api-key: eci_...), not with customer sign-ins or customer API keys.";

/**
 * Authenticates an ingestion call from its headers alone (Fastify's onRequest, before the body is
 * read): an ingestion key in x-api-key, validated against the product's own table (never the
 * identity service); or a provider operator's bearer token or the backend API key. Customer
 * bearer tokens and customer API keys are refused with 403.
 */
function createSenderAuth(deps: IngestRouteDeps) {
  const bearer = createBearerCallerAuth(deps.gateway, deps.authenticate, deps.operatorKey);
  return async function sender(req: FastifyRequest): Promise<Sender> {
    const raw = req.headers["x-api-key"];
    if (raw !== undefined) {
      const token = typeof raw === "string" ? raw.trim() : "";
      if (!token) throw new ApiError("unauthorized", "The API key is not valid.");
      if (!isIngestKeyToken(token)) throw forbidden(CUSTOMER_REFUSED);
      const key = await deps.ingestKeys.verify(token);
      if (!key) throw new ApiError("unauthorized", "The ingestion key is not valid or was revoked.");
      return {
        kind: "ingest_key",
        organizationUuid: key.organizationUuid,
        token,
        keyUuid: key.ingestKeyUuid,
      };
    }
    if (!req.headers.authorization)
      throw new ApiError("unauthorized", "Send an ingestion key in the x-api-key header.");
    const caller: BearerCaller = await bearer(req);
    if (caller.kind === "customer") throw forbidden(CUSTOMER_REFUSED);
    return { kind: "operator", actor: caller.actor, ownOrg: caller.org?.org_id ?? null };
  };
}

/** Organizations that exist, remembered for a minute (all-organizations keys name one per call). */
function createOrgCheck(gateway: IdentityGateway) {
  const known = new Map<string, number>();
  return async (orgId: string) => {
    const now = Date.now();
    if ((known.get(orgId) ?? 0) > now) return;
    if (!(await gateway.findOrganization(orgId))) throw new ApiError("not_found", "Organization not found.");
    if (known.size > 10_000) known.clear();
    known.set(orgId, now + 60_000);
  };
}

/** POST /v1/usage/events: idempotent batch ingestion of priced usage events (JSON or NDJSON). */
export const usageIngestRoutes: FastifyPluginAsyncZod<
  IngestRouteDeps & { limiter: RateLimits; rateLimits?: IngestRateLimits }
> = async (app, deps) => {
  const authenticate = createSenderAuth(deps);
  const orgExists = createOrgCheck(deps.gateway);
  const senders = new WeakMap<FastifyRequest, Sender>();
  const limits = deps.rateLimits ?? DEFAULT_INGEST_RATE_LIMITS;
  const limiter = limits.perKey > 0 || limits.perOrg > 0 ? deps.limiter : null;
  const decided = sendRateLimitHeaders(app);
  // The caller is known, and counted, before the body is read.
  app.addHook("onRequest", async (req) => {
    const sender = await authenticate(req);
    senders.set(req, sender);
    // Ingestion keys only: operators' own calls (imports, credits) are not the eval services'.
    if (!limiter || sender.kind !== "ingest_key") return;
    const named = (req.query as { organization_uuid?: unknown }).organization_uuid;
    const org = sender.organizationUuid ?? (typeof named === "string" ? named.slice(0, 64) : null);
    const d = await decideRate(
      limiter,
      {
        key: `ingest:${createHash("sha256").update(sender.token).digest("base64url").slice(0, 32)}`,
        limit: limits.perKey,
      },
      org ? { key: `ingest-org:${org}`, limit: limits.perOrg } : null,
    );
    if (d) decided.set(req, d);
    if (d && !d.allowed) throw rateLimitError(d);
  });
  // The NDJSON parser exists on this route only: one event per line; a line that is not a JSON
  // object becomes a rejected event, not a 400.
  app.addContentTypeParser(
    NDJSON,
    { parseAs: "string", bodyLimit: INGEST_BODY_LIMIT },
    (_req, body, done) => {
      done(null, { events: parseNdjson(body as string) });
    },
  );

  app.post(
    "/usage/events",
    {
      config: { auth: "bearer_or_api_key", authenticatesItself: true },
      bodyLimit: INGEST_BODY_LIMIT,
      schema: {
        tags: ["Usage"],
        summary: "Send a batch of usage events",
        description:
          `Up to ${MAX_EVENTS_PER_BATCH} events per call, each validated and priced on its own: one bad ` +
          "event never drops the others. An event is stored once per (organization, event_id); sending it " +
          "again counts it as a duplicate. Authenticate with an ingestion key in x-api-key (eci_..., created " +
          "by the provider's operator with `ingest-key create`): a key scoped to one organization writes " +
          "there; an all-organizations key names the organization with organization_uuid. Customer bearer " +
          "tokens and customer API keys get 403. Events are rejected with a reason when they are more than " +
          "5 minutes in the future, before the organization's first billing cycle (or before " +
          `${EARLIEST_OCCURRED_AT.toISOString().slice(0, 10)} when it has none), more than USAGE_MAX_AGE_DAYS ` +
          "(default 400) days before today (their event ids are not kept longer), in another organization's " +
          `workspace, with a quantity outside 1..${MAX_QUANTITY}, a priced cost ` +
          `above $${MAX_EVENT_COST_USD}, or text with NUL characters or unpaired surrogates. An explicit ` +
          "cost (a credit or charge, with notes) is accepted only from a provider operator (bearer token) and " +
          "is written to the audit log; from an ingestion key the event is rejected. An event in a closed " +
          "billing cycle is accepted as late usage (counted in late): billed in the open cycle, priced at its " +
          "time, marked with its period; an operator's backfill=true bills it in the closed cycle instead. With Content-Type " +
          "application/x-ndjson the body is one event per line (blank lines skipped); a line that is not a " +
          "JSON object is a rejected event at its index, and the response is the same. A valid event that " +
          "no price rule matches is accepted and awaits pricing (counted in awaiting_pricing): it is not " +
          "billed, not even as $0, until a provider operator sets a price that covers it.",
        querystring: UsageIngestQuerySchema,
        headers: UsageIngestHeadersSchema,
        body: UsageBatchSchema,
        response: {
          200: json("What happened to each event", UsageIngestResultSchema),
          400: failure("The body is not a batch of at most 10,000 events, or organization_uuid is missing"),
          401: failure("No ingestion key or bearer token, or one that is not valid or was revoked"),
          403: failure(
            "A customer bearer token or API key; an ingestion key of another organization; or a backfill without being a provider operator",
          ),
          404: failure("organization_uuid names no organization"),
          413: failure("The body is larger than 16 MiB"),
        },
      },
    },
    async (req) => {
      const sender = senders.get(req);
      if (!sender) throw new Error("unreachable: authenticated in onRequest");
      const { query, body } = req;
      const backfill = query.backfill === "true";
      let orgId: string;
      if (sender.kind === "ingest_key") {
        if (backfill) throw notOperator("backfill closed billing cycles");
        if (sender.organizationUuid) {
          if (query.organization_uuid !== undefined && query.organization_uuid !== sender.organizationUuid)
            throw forbidden("This ingestion key sends usage for one organization only, not this one.");
          orgId = sender.organizationUuid;
        } else {
          if (query.organization_uuid === undefined)
            throw new ApiError(
              "invalid_request",
              "organization_uuid is required with an ingestion key for all organizations.",
            );
          orgId = query.organization_uuid;
          await orgExists(orgId);
        }
      } else {
        const target = query.organization_uuid ?? sender.ownOrg;
        if (!target)
          throw new ApiError(
            "invalid_request",
            "organization_uuid is required for an operator outside any organization.",
          );
        orgId = target;
        await orgExists(orgId);
      }
      const source =
        sender.kind === "ingest_key"
          ? `key:${sender.keyUuid}`
          : `operator:${sender.actor.userId ?? "backend"}`;
      const header = req.headers[USAGE_WATERMARK_HEADER.toLowerCase()];
      const completeThrough = typeof header === "string" ? new Date(header) : null;
      // Its statements take turns with other organizations' work (tenant-scope.ts).
      return runAsTenant(orgId, async () => {
        // Events dated at or before what this sender had already reported complete: late for
        // their period, counted once each — only those this batch stores, so the clock is read
        // before it (the database's: the events' ingested_at is its transaction's start).
        const watermark = await senderWatermark(deps.db, orgId, source);
        const behind = watermark ? eventIdsAtOrBefore(body.events, watermark) : [];
        const since = behind.length ? await databaseNow(deps.db) : null;
        const result = await ingestUsage(deps.db, orgId, body.events, {
          backfill,
          maxAgeDays: deps.usageMaxAgeDays ?? 0,
          ...(sender.kind === "operator" ? { adjustments: { by: sender.actor } } : {}),
        });
        const late = since ? await storedSince(deps.db, orgId, behind, since) : [];
        await recordWatermark(deps.db, orgId, source, { completeThrough, late });
        return result;
      });
    },
  );
};

/** The ids of the batch's events dated at or before `t` (what the event validation will refuse aside). */
function eventIdsAtOrBefore(events: readonly unknown[], t: Date): string[] {
  const ids: string[] = [];
  for (const e of events) {
    if (typeof e !== "object" || e === null) continue;
    const { event_id: id, occurred_at: at } = e as { event_id?: unknown; occurred_at?: unknown };
    if (typeof id === "string" && typeof at === "string" && Date.parse(at) <= t.getTime()) ids.push(id);
  }
  return ids;
}
