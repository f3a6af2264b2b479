import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { USAGE_WATERMARK_HEADER, UsageCompletenessSchema } from "../../contract/usage-completeness";
import { usageCompleteness } from "../metering/ingestion/watermarks";
import type { Db } from "../platform/database";
import { adminOrg } from "./route-hooks";
import { failure, json } from "./schemas";
import { USAGE_READ_CONFIG, USAGE_TAGS } from "./usage-read-kit";

/**
 * GET /v1/usage/completeness: how complete the organization's usage is, beside the dashboard's
 * "Data as of" (how fresh it is). Administrators only, like the usage it speaks of.
 */
export const usageCompletenessRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    "/usage/completeness",
    {
      config: USAGE_READ_CONFIG,
      schema: {
        tags: USAGE_TAGS,
        summary: "How complete the usage is",
        description:
          `Eval services may send ${USAGE_WATERMARK_HEADER}: T with a batch of usage, meaning they have sent every ` +
          "event up to T. complete_through is the earliest watermark of the senders that sent one in the last 7 days " +
          "(null when none did: recent usage may still be arriving, and zero spend may be a delay), and late_events " +
          "counts the events senders stored after their own watermark had passed their time.",
        response: {
          200: json("Completeness", UsageCompletenessSchema),
          401: failure("Not signed in"),
          403: failure("Not an organization administrator"),
        },
      },
    },
    async (req) => usageCompleteness(db, adminOrg(req).org_id),
  );
};
