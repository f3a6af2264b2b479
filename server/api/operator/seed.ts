import { PassThrough } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityAdmin } from "../../identity/admin";
import { MAX_SEED_EVENTS } from "../../metering/shared/cli-args";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { errorChain } from "../../platform/database";
import { ApiError, errorBody } from "../../platform/errors";
import {
  DEFAULT_DEMO_EVENTS,
  DEMO_ORG,
  DEMO_USERS,
  demoIngestKey,
  seedDemo,
  seedDemoUsage,
  shownDemoPassword,
} from "../../seed";
import type { WorkspaceStore } from "../../workspaces/store";
import { failure } from "../schemas";
import { installOperatorGuard, OPERATOR_ROUTE_CONFIG, OPERATOR_TAGS, type OperatorGuardDeps } from "./guard";

export type SeedRouteDeps = OperatorGuardDeps & {
  db: Db;
  /** The identity service's own writes: the demo's organization and users are made with them. */
  identity: IdentityAdmin;
  workspaces: WorkspaceStore;
  /** DEMO_PASSWORD, if set. */
  demoPassword: string | undefined;
  /** Without DEMO_PASSWORD: a generated password (PostgreSQL) rather than the documented one. */
  generatePassword: boolean;
};

const NDJSON = "application/x-ndjson";

const SEED_ERROR = "seed must be a whole number from 0 to 4294967295.";

const SeedBodySchema = z
  .strictObject({
    events: z
      .int({ error: "events must be a whole number." })
      .min(0, { error: "events must be at least 0." })
      .max(MAX_SEED_EVENTS, { error: `events must be at most ${MAX_SEED_EVENTS}.` })
      .optional()
      .meta({
        description: `Usage events to generate; default ${DEFAULT_DEMO_EVENTS.toLocaleString("en-US")}.`,
      }),
    seed: z
      .union([z.int({ error: SEED_ERROR }), z.string().regex(/^\d{1,10}$/, { error: SEED_ERROR })], {
        error: SEED_ERROR,
      })
      .transform((v) => Number(v))
      .refine((v) => v >= 0 && v <= 2 ** 32 - 1, { error: SEED_ERROR })
      .optional()
      .meta({ description: "The generator's seed (events are named demo-<seed>-<n>); default 2026." }),
  })
  .meta({ id: "DemoSeedBody" })
  .nullable();

const SeedResultSchema = z
  .object({
    created: z.boolean().meta({ description: "Whether this call created the demo organization." }),
    reason: z.string().nullable().meta({ description: "Why it was not created." }),
    users: z.array(z.string()).meta({ description: "The demo users' emails." }),
    password: z
      .string()
      .nullable()
      .meta({
        description:
          "The demo users' password: only when this call created them with a password the product chose " +
          "(generated, or the documented default); null when it is DEMO_PASSWORD's, which is never sent.",
      }),
    ingest_key: z
      .string()
      .nullable()
      .meta({ description: "The demo's ingestion key (eci_…): only when this call created the demo." }),
    usage: z.object({
      seeded: z.boolean(),
      reason: z.string().nullable().meta({ description: "Why no usage was seeded." }),
      generated: z.int().min(0),
      accepted: z.int().min(0),
      seconds: z.number().min(0),
    }),
  })
  .meta({ id: "DemoSeedResult" });

type SeedResult = z.infer<typeof SeedResultSchema>;

const SeedStreamLineSchema = z
  .union([
    z.object({ progress: z.object({ done: z.int().min(0), total: z.int().min(0) }) }),
    z.object({ result: SeedResultSchema }),
    z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
  ])
  .meta({ id: "DemoSeedStreamLine" });

/** Two seeds at once would make the same users twice: the loser's unique violation is a 409. */
const isUniqueViolation = (err: unknown) =>
  [...errorChain(err)].some((e) => (e as { code?: unknown }).code === "23505");

/**
 * What the CLI's `seed` does: the demo organization, its users and workspaces if missing, then its
 * billing data and `events` generated usage events (resumable: a finished demo costs one count).
 */
async function seed(
  deps: SeedRouteDeps,
  opts: { events: number; seed?: number; by: Actor; onProgress(done: number, total: number): void },
): Promise<SeedResult> {
  const org = await seedDemo(deps, { password: deps.demoPassword, generate: deps.generatePassword });
  const key = org.created ? await demoIngestKey(deps.db, opts.by) : null;
  const usage = await seedDemoUsage(deps, {
    events: opts.events,
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    onProgress: opts.onProgress,
  });
  const demo = await deps.identity.findOrganizationBySlug(DEMO_ORG.slug);
  const result: SeedResult = {
    created: org.created,
    reason: org.created ? null : org.reason,
    users: DEMO_USERS.map((u) => u.email),
    password: org.created ? shownDemoPassword(org) : null,
    ingest_key: key,
    usage: usage.seeded
      ? {
          seeded: true,
          reason: null,
          generated: usage.generated,
          accepted: usage.accepted,
          seconds: usage.seconds,
        }
      : { seeded: false, reason: usage.reason, generated: 0, accepted: 0, seconds: 0 },
  };
  if (demo)
    await writeAudit(deps.db, {
      organizationUuid: demo.id,
      actor: opts.by,
      action: "demo.seeded",
      target: { type: "organization", id: demo.id, label: demo.name },
      after: {
        created: result.created,
        usage_seeded: result.usage.seeded,
        events_generated: result.usage.generated,
        events_stored: result.usage.accepted,
      },
    });
  return result;
}

/**
 * POST /v1/operator/demo/seed: the demo organization and its usage, for provider operators (the CLI's
 * `seed` while a server runs on the embedded database). Seeding 100,000 events takes a while: with
 * Accept: application/x-ndjson the answer streams {"progress": …} lines, then {"result": …}.
 */
export const operatorSeedRoutes: FastifyPluginAsyncZod<SeedRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "seed the demo");
  let running = false;

  app.post(
    "/operator/demo/seed",
    {
      config: OPERATOR_ROUTE_CONFIG,
      schema: {
        tags: OPERATOR_TAGS,
        summary: "Seed the demo organization and its usage",
        description:
          `Provider operators only. Creates the demo organization (${DEMO_ORG.name}), its users and ` +
          "workspaces if missing, then its billing cycles, prices, groups, payments and generated usage " +
          "events; what exists already is left as it is. The users' password and a demo ingestion key " +
          "are in the answer only when this call created the demo. With Accept: application/x-ndjson " +
          'the answer is a stream of lines: {"progress": {"done", "total"}} after each batch of events, ' +
          'then {"result": …} (or {"error": …} should it fail on the way).',
        body: SeedBodySchema,
        response: {
          200: {
            description: "What was seeded",
            content: {
              "application/json": { schema: SeedResultSchema },
              [NDJSON]: { schema: SeedStreamLineSchema },
            },
          },
          400: failure("Invalid request"),
          401: failure("No bearer token, or one that is not valid"),
          403: failure("Not a provider operator"),
          409: failure("A seed is already running"),
        },
      },
    },
    async (req, reply) => {
      if (running) throw new ApiError("conflict", "A demo seed is already running on this server.");
      running = true;
      const opts = {
        events: req.body?.events ?? DEFAULT_DEMO_EVENTS,
        ...(req.body?.seed !== undefined ? { seed: req.body.seed } : {}),
        by: actorOf(req),
      };
      if (!String(req.headers.accept ?? "").includes(NDJSON)) {
        try {
          return await seed(deps, { ...opts, onProgress: () => {} });
        } catch (err) {
          if (isUniqueViolation(err))
            throw new ApiError("conflict", "Another seed made the demo meanwhile; run it again.");
          throw err;
        } finally {
          running = false;
        }
      }
      const out = new PassThrough();
      const line = (value: unknown) => out.write(`${JSON.stringify(value)}\n`);
      seed(deps, { ...opts, onProgress: (done, total) => line({ progress: { done, total } }) })
        .then((result) => line({ result }))
        .catch((err) => {
          // The 200 is sent already: the failure is the stream's last line.
          req.log.error({ err }, "demo seed failed");
          line(
            isUniqueViolation(err)
              ? errorBody("conflict", "Another seed made the demo meanwhile; run it again.")
              : err instanceof ApiError
                ? errorBody(err.code, err.message)
                : errorBody("internal_error"),
          );
        })
        .finally(() => {
          running = false;
          out.end();
        });
      // A stream is sent as it is, past the serializer the response schema types `send` by.
      return reply.header("content-type", NDJSON).send(out as unknown as SeedResult);
    },
  );
};
