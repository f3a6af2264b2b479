import { PassThrough } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DEFAULT_DEMO_EVENTS, MAX_SEED_EVENTS } from "../../metering/shared/cli-args";
import type { Actor } from "../../platform/audit";
import { errorChain } from "../../platform/database";
import { ApiError, errorBody, refusalOf } from "../../platform/errors";
import type { WorkspaceStore } from "../../workspaces/store";
import { failure } from "../schemas";
import { optionalBody } from "./common";
import { installOperatorGuard, type OperatorGuardDeps, operatorRoute } from "./guard";

/**
 * The demo seed as this route runs it: made by the composition root (server/demo-seeding.ts) from
 * the identity service's own writes, so the API imports neither identity nor the demo data.
 */
export type DemoSeeding = {
  /** The demo organization's name, for the route's description. */
  orgName: string;
  /**
   * The demo organization, its users and workspaces if missing, then its billing data and
   * `events` generated usage events (resumable: a finished demo costs one count), audited as `by`.
   */
  run(
    workspaces: WorkspaceStore,
    opts: { events: number; seed?: number; by: Actor; onProgress(done: number, total: number): void },
  ): Promise<DemoSeedResult>;
};

export type SeedRouteDeps = OperatorGuardDeps & { workspaces: WorkspaceStore; seeding: DemoSeeding };

const NDJSON = "application/x-ndjson";

const SEED_ERROR = "seed must be a whole number from 0 to 4294967295.";

const SeedBodySchema = optionalBody("DemoSeedBody", {
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
});

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

export type DemoSeedResult = z.infer<typeof SeedResultSchema>;

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
 * POST /v1/operator/demo/seed: the demo organization and its usage, for provider operators (the CLI's
 * `seed` while a server runs on the embedded database). Seeding 100,000 events takes a while: with
 * Accept: application/x-ndjson the answer streams {"progress": …} lines, then {"result": …}.
 */
export const operatorSeedRoutes: FastifyPluginAsyncZod<SeedRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "seed the demo");
  let running = false;

  app.post(
    "/operator/demo/seed",
    operatorRoute({
      summary: "Seed the demo organization and its usage",
      description:
        `Provider operators only. Creates the demo organization (${deps.seeding.orgName}), its users and ` +
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
    }),
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
          return await deps.seeding.run(deps.workspaces, { ...opts, onProgress: () => {} });
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
      deps.seeding
        .run(deps.workspaces, {
          ...opts,
          onProgress: (done, total) => line({ progress: { done, total } }),
        })
        .then((result) => line({ result }))
        .catch((err) => {
          // The 200 is sent already: the failure is the stream's last line.
          req.log.error({ err }, "demo seed failed");
          line(
            isUniqueViolation(err)
              ? errorBody("conflict", "Another seed made the demo meanwhile; run it again.")
              : (() => {
                  const refusal = refusalOf(err);
                  return refusal ? errorBody(refusal.code, refusal.message) : errorBody("internal_error");
                })(),
          );
        })
        .finally(() => {
          running = false;
          out.end();
        });
      // A stream is sent as it is, past the serializer the response schema types `send` by.
      return reply.header("content-type", NDJSON).send(out as unknown as DemoSeedResult);
    },
  );
};
