import { type Readable, Transform } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  ImportError,
  type ImportFormat,
  importUsage,
  MAX_RECORD_CHARS,
} from "../../metering/ingestion/import";
import { MAX_EVENTS_PER_BATCH } from "../../metering/ingestion/limits";
import type { Db } from "../../platform/database";
import { DomainError } from "../../platform/domain-error";
import { ApiError } from "../../platform/errors";
import { failure, json } from "../schemas";
import { OrganizationParamsSchema, organizationOf } from "./common";
import { installOperatorGuard, OPERATOR_ROUTE_CONFIG, OPERATOR_TAGS, type OperatorGuardDeps } from "./guard";

/** The largest import one call takes; every other route keeps its own, far smaller, limit. */
export const IMPORT_BODY_LIMIT = 2 * 1024 ** 3;

/** The route, as the shared hooks name it. */
export const USAGE_IMPORT_PATH = "/v1/operator/organizations/:organization/usage/import";

/** How many rejections an answer lists (the counts cover them all). */
export const IMPORT_REJECTIONS_LISTED = 100;

const TYPES: Record<string, ImportFormat> = { "application/x-ndjson": "ndjson", "text/csv": "csv" };

/** The format a Content-Type names; 415 for any other type, or a charset other than UTF-8. */
function formatOf(header: string | undefined): ImportFormat {
  const [type = "", ...params] = (header ?? "").split(";").map((s) => s.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith("charset="))
    ?.slice(8)
    .replace(/"/g, "");
  const format = TYPES[type];
  if (!format || (charset !== undefined && charset !== "utf-8" && charset !== "utf8"))
    throw new ApiError(
      "unsupported_media_type",
      "The body must be application/x-ndjson or text/csv (UTF-8): usage events, as `usage import` reads them.",
    );
  return format;
}

/**
 * The request body as UTF-8 text, counting its bytes as they arrive and failing with 413 past the
 * limit (Fastify leaves the limit to a parser that takes the raw stream, as this route's does).
 */
function bodyText(body: Readable) {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > IMPORT_BODY_LIMIT)
        return done(new ApiError("payload_too_large", "The body is larger than 2 GiB; split the file."));
      done(null, chunk);
    },
  });
  // A body cut short (the client went away) fails the text rather than ending it. Not pipeline():
  // stopping early (a bad CSV header) must leave the request open for the answer.
  body.on("error", (err) => counter.destroy(err));
  body.pipe(counter);
  counter.setEncoding("utf8");
  return { text: counter as AsyncIterable<string>, bytes: () => bytes };
}

const ImportQuerySchema = z.strictObject({
  backfill: z.enum(["true", "false"], { error: 'backfill must be "true" or "false".' }).optional().meta({
    description: "Accept events in closed billing cycles (not before the first cycle). Default false.",
  }),
});

// The parser below hands the handler the body unread; Fastify still runs the body schema on it.
const ImportBodySchema = z
  .custom<Readable>((v) => typeof (v as Readable | null)?.pipe === "function", {
    error: "The body must be usage events as NDJSON or CSV.",
  })
  .meta({
    description:
      "NDJSON: one event per line in the JSON shape of POST /v1/usage/events (blank lines skipped). CSV: " +
      "a header row of the same field names (event_id,occurred_at,operation,eval_type,…); empty cells are " +
      "left out, is_jailbreak / has_ground_truth read true/false/1/0/yes/no.",
  });

const ImportResultSchema = z
  .object({
    events: z.int().min(0).meta({ description: "Events read (lines or records, blank ones skipped)." }),
    accepted: z.int().min(0).meta({ description: "Events stored by this call." }),
    awaiting_pricing: z.int().min(0).meta({
      description:
        "Of the accepted events, those no price rule matches yet: stored, priced once a rule covers them.",
    }),
    duplicates: z.int().min(0).meta({ description: "Events whose event_id the organization already has." }),
    rejected: z.int().min(0).meta({ description: "Events refused, each for its own reason." }),
    rejections: z
      .array(z.object({ line: z.int().min(0), event_id: z.string().nullable(), reason: z.string() }))
      .meta({ description: `The first ${IMPORT_REJECTIONS_LISTED} rejected events, with their line.` }),
    seconds: z.number().min(0),
  })
  .meta({ id: "UsageImportResult" });

/**
 * POST /v1/operator/organizations/{organization}/usage/import: what `usage import` does, over HTTP.
 * The body is read as it arrives and ingested in batches of 10,000, so a file of any size costs
 * one batch of memory; the answer comes once all of it is stored.
 */
export const operatorUsageImportRoutes: FastifyPluginAsyncZod<
  OperatorGuardDeps & { db: Db; usageMaxAgeDays?: number }
> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "import usage");
  // Before the body is read (and after the guard): the type, and a declared length past the limit.
  app.addHook("onRequest", async (req) => {
    formatOf(req.headers["content-type"]);
    if (Number(req.headers["content-length"]) > IMPORT_BODY_LIMIT)
      throw new ApiError("payload_too_large", "The body is larger than 2 GiB; split the file.");
  });
  // A refusal before the whole body was read: close the connection after the answer rather than
  // read what is left (up to 2 GiB) only to drop it.
  app.addHook("onError", async (req, reply) => {
    if (!req.raw.complete) reply.header("connection", "close");
  });
  app.addContentTypeParser(Object.keys(TYPES), (_req, payload, done) => done(null, payload));

  app.post(
    USAGE_IMPORT_PATH.replace(/^\/v1/, ""),
    {
      config: OPERATOR_ROUTE_CONFIG,
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags: OPERATOR_TAGS,
        summary: "Import usage events (NDJSON or CSV)",
        description:
          "Provider operators only. The body streams in and is stored in batches of " +
          `${MAX_EVENTS_PER_BATCH.toLocaleString("en-US")} events through the same ingestion as ` +
          "POST /v1/usage/events: each event is accepted, found a duplicate (its event_id is stored " +
          "already, so sending a file again only finds duplicates) or rejected with its reason and line. " +
          "Credits and charges (cost with notes) are accepted and audited. Up to 2 GiB per call; a line " +
          `or record longer than ${MAX_RECORD_CHARS.toLocaleString("en-US")} characters is rejected ` +
          "(NDJSON) or stops the import (CSV, 400). A CSV header naming something other than event " +
          "fields is refused before anything is stored. One audit entry (usage.imported) per call.",
        params: OrganizationParamsSchema,
        querystring: ImportQuerySchema,
        consumes: Object.keys(TYPES),
        body: ImportBodySchema,
        response: {
          200: json("What became of the events", ImportResultSchema),
          400: failure("Invalid request, a CSV header that names no event field, or a runaway CSV record"),
          401: failure("No bearer token, or one that is not valid"),
          403: failure("Not a provider operator"),
          404: failure("No such organization"),
          413: failure("The body is larger than 2 GiB"),
          415: failure("The body is neither application/x-ndjson nor text/csv"),
        },
      },
    },
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const format = formatOf(req.headers["content-type"]);
      const { text, bytes } = bodyText(req.body);
      try {
        const r = await importUsage(deps.db, org.id, text, {
          format,
          source: "body",
          totalBytes: 0,
          bytesRead: bytes,
          backfill: req.query.backfill === "true",
          by: actorOf(req),
          keepRejections: IMPORT_REJECTIONS_LISTED,
          maxAgeDays: deps.usageMaxAgeDays ?? 0,
        });
        return {
          events: r.events,
          accepted: r.accepted,
          awaiting_pricing: r.awaitingPricing,
          duplicates: r.duplicates,
          rejected: r.rejected,
          rejections: r.rejections,
          seconds: r.seconds,
        };
      } catch (err) {
        if (err instanceof ApiError || err instanceof DomainError) throw err;
        if (err instanceof ImportError) throw new ApiError("invalid_request", err.message);
        if (req.raw.aborted || (err as NodeJS.ErrnoException).code === "ECONNRESET")
          throw new ApiError("invalid_request", "The body ended before it was complete.");
        throw err;
      }
    },
  );
};
