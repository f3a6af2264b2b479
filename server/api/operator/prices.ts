import { sql } from "drizzle-orm";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { formatUsdExact } from "../../../contract/money";
import { WIN_REASONS } from "../../../contract/price-shadows";
import { organizationSummary } from "../../metering/billing/organizations";
import { MAX_EVENT_COST_USD } from "../../metering/ingestion/limits";
import { awaitingReport } from "../../metering/pricing/awaiting-pricing";
import { shadowJson, shadowsOf } from "../../metering/pricing/price-shadows";
import {
  listPriceRules,
  priceRuleStatus,
  storePriceRule,
  VALID_FROM_RANGE,
  validFromInRange,
} from "../../metering/pricing/prices";
import { RERATE_JOB, wakeRerating } from "../../metering/pricing/rerate-job";
import type { PriceRule, RuleMetric } from "../../metering/pricing/rule-matching";
import type { Db } from "../../platform/database";
import { ApiError } from "../../platform/errors";
import { getJob } from "../../platform/jobs";
import { organizationUuidField, textField, usdField } from "../fields";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { OPERATOR_ERRORS, OrganizationParamsSchema, organizationOf } from "./common";
import { installOperatorGuard, OPERATOR_ROUTE_CONFIG, OPERATOR_TAGS } from "./guard";

/** A rule's fields, as the list and the answer of "Set a price" both give them. */
const PriceRuleFields = z.object({
  price_rule_uuid: z.uuid(),
  organization_uuid: z.string().nullable().meta({ description: "null: the global price list." }),
  operation: z.string().nullable().meta({ description: "null: any operation." }),
  eval_type: z.string().nullable().meta({ description: "null: any eval type." }),
  modality: z.string().nullable().meta({ description: "null: any modality (lower case)." }),
  rule_metric: z.enum(["eval", "prompt"]).nullable().meta({ description: "null: either metric." }),
  unit_price_usd: z.string().meta({ description: 'USD per unit, exact decimal string, e.g. "0.0125".' }),
  valid_from: z.iso.datetime(),
  valid_to: z.iso.datetime().nullable().meta({ description: "Exclusive; null while the rule is open." }),
  status: z.enum(["active", "scheduled", "ended"]),
  version: z.int().meta({
    description:
      "The rule's version within its lineage (same organization and dimensions): 1 for the first, one more for each later price.",
  }),
  built_in: z.boolean().meta({
    description:
      "A rule of the default price list shipped with the product (global); any rule an operator sets wins over it.",
  }),
});

const PriceRuleSchema = PriceRuleFields.extend({
  rerating_job_uuid: z.uuid().nullable().meta({
    description:
      "The re-rating this price started (GET /v1/operator/jobs/{job_uuid}); null for a rule set before re-ratings were jobs, or built in.",
  }),
}).meta({ id: "PriceRule" });

const money = (description: string) => z.string().meta({ description });

const SetPriceResultSchema = PriceRuleFields.extend({
  rerating: z
    .object({
      job_uuid: z.uuid().meta({ description: "The re-rating job: GET /v1/operator/jobs/{job_uuid}." }),
      state: z.enum(["queued", "running", "done", "failed"]),
      total: z.int().min(0).nullable().meta({ description: "The events it will read." }),
    })
    .meta({
      description:
        "The re-rating the new price starts, as a job: the open cycle's events from valid_from on, exactly, and the " +
        "closed cycles' difference as correction lines. It runs after the answer; a change for an organization " +
        "whose earlier change is still re-rating waits queued behind it.",
    }),
  shadowed_by: z
    .array(
      z.object({
        price_rule_uuid: z.uuid(),
        organization_uuid: z.string().nullable(),
        operation: z.string().nullable(),
        eval_type: z.string().nullable(),
        modality: z.string().nullable(),
        rule_metric: z.string().nullable(),
        unit_price_usd: money("The other rule's unit price in USD (exact)."),
        version: z.int(),
        events: z.int().min(0).meta({
          description: "Events of the open cycle the new price fits that the other rule prices.",
        }),
        reason: z.enum(WIN_REASONS).meta({
          description:
            "Why the other rule wins (docs/pricing.md): an organization's own price, more dimensions, or as many " +
            "naming one earlier in the order eval_type, operation, modality, rule_metric.",
        }),
      }),
    )
    .meta({
      description:
        "Other rules that outrank the new price and name at least as many dimensions, with the events of the " +
        "open cycle it fits that they price (at most 20, most events first). Empty: no such rule prices any.",
    }),
}).meta({ id: "SetPriceResult" });

const LIST_ORGANIZATION_ERROR = 'organization_uuid must be an organization uuid or "global".';

const ListQuerySchema = z.strictObject({
  organization_uuid: z
    .union([z.literal("global"), organizationUuidField(LIST_ORGANIZATION_ERROR)], {
      error: LIST_ORGANIZATION_ERROR,
    })
    .optional()
    .meta({ description: 'An organization\'s own rules, or "global" for the global list; omitted: all.' }),
});

const dimension = (field: string) =>
  textField(field, 100)
    .nullish()
    .meta({ description: `Omitted or null: any ${field.replace("_", " ")}.` });

/** The largest unit price: one unit must cost at most what one event may. */
const MAX_UNIT_PRICE_USD = 1_000_000;

const CreateBodySchema = z
  .strictObject({
    organization_uuid: organizationUuidField("organization_uuid must be an organization uuid or null.")
      .nullish()
      .meta({ description: "The organization the price is for; omitted or null: the global list." }),
    operation: dimension("operation"),
    eval_type: dimension("eval_type"),
    modality: dimension("modality"),
    rule_metric: z
      .enum(["eval", "prompt"], { error: 'rule_metric must be "eval", "prompt" or null.' })
      .nullish(),
    unit_price_usd: usdField("unit_price_usd", { maxUsd: MAX_UNIT_PRICE_USD, zero: true }),
    valid_from: z.iso
      .datetime({ offset: true, error: "valid_from must be an ISO 8601 date-time." })
      .refine((v) => validFromInRange(new Date(v)), { error: VALID_FROM_RANGE })
      .optional()
      .meta({ description: "When the price starts (default now); may be in the past, 2000 to 2100." }),
  })
  .meta({ id: "PriceRuleBody" });

const AwaitingGroupSchema = z.object({
  operation: z.string(),
  eval_type: z.string(),
  modality: z.string().meta({ description: 'Lower case; "" when the events have none.' }),
  rule_metric: z.string(),
  events: z.int().min(0),
  quantity: z.int().min(0),
  oldest_occurred_at: z.iso.datetime(),
  newest_occurred_at: z.iso.datetime(),
  held: z.int().min(0).meta({
    description:
      "Events a price rule already covers but that could not be priced (a closed cycle, an archived month, the cost limit).",
  }),
  held_reasons: z.array(z.string()).meta({ description: "Why they are held (distinct, at most 5)." }),
});

const AwaitingPricingReportSchema = z
  .object({
    organization_uuid: z.string(),
    events: z.int().min(0).meta({ description: "Events awaiting pricing in all." }),
    oldest_occurred_at: z.iso.datetime().nullable(),
    dimensions: z.array(AwaitingGroupSchema).meta({
      description:
        "Per operation, eval type, modality and rule metric; the group with the oldest event first.",
    }),
  })
  .meta({ id: "OperatorAwaitingPricing" });

const isRuleMetric = (v: string | null): v is RuleMetric => v === "eval" || v === "prompt";

const priceRuleJson = (r: PriceRule, now = new Date()) => ({
  price_rule_uuid: r.priceRuleUuid,
  organization_uuid: r.organizationUuid,
  operation: r.operation,
  eval_type: r.evalType,
  modality: r.modality,
  rule_metric: isRuleMetric(r.ruleMetric) ? r.ruleMetric : null,
  unit_price_usd: formatUsdExact(r.unitPriceMicros),
  valid_from: r.validFrom.toISOString(),
  valid_to: r.validTo?.toISOString() ?? null,
  status: priceRuleStatus(r, now),
  built_in: r.builtIn === true,
  version: r.version ?? 1,
});

/** The re-rating job each rule started (its latest, were one ever re-queued), by rule uuid. */
async function reratingJobsOf(db: Db, ruleUuids: string[]): Promise<Map<string, string>> {
  if (!ruleUuids.length) return new Map();
  const result = (await db.execute(sql`
    select distinct on (rule) payload->'rule'->>'priceRuleUuid' as rule, id::text as id from jobs
     where kind = ${RERATE_JOB}
       and payload->'rule'->>'priceRuleUuid' in (${sql.join(
         ruleUuids.map((u) => sql`${u}`),
         sql`, `,
       )})
     order by rule, created_at desc`)) as unknown as { rows: { rule: string; id: string }[] };
  return new Map(result.rows.map((r) => [r.rule, r.id]));
}

const tags = OPERATOR_TAGS;
const config = OPERATOR_ROUTE_CONFIG;

/** /v1/operator/price-rules: the price list's history, and new prices, for provider operators. */
export const operatorPriceRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "manage price rules");

  app.get(
    "/operator/price-rules",
    {
      config,
      schema: {
        tags,
        summary: "List price rules with their history",
        description:
          "Provider operators only. Every version, ended ones too, newest valid_from first: an " +
          "organization's own rules, the global list, or (without organization_uuid) all of them.",
        querystring: ListQuerySchema,
        response: {
          200: json("The rules", z.object({ price_rules: z.array(PriceRuleSchema) })),
          ...OPERATOR_ERRORS,
        },
      },
    },
    async (req) => {
      const org = req.query.organization_uuid;
      const rules = await listPriceRules(deps.db, org === "global" ? null : org);
      const now = new Date();
      const jobOf = await reratingJobsOf(
        deps.db,
        rules.map((r) => r.priceRuleUuid),
      );
      return {
        price_rules: rules.map((r) => ({
          ...priceRuleJson(r, now),
          rerating_job_uuid: jobOf.get(r.priceRuleUuid) ?? null,
        })),
      };
    },
  );

  app.get(
    "/operator/organizations/:organization/awaiting-pricing",
    {
      config,
      schema: {
        tags,
        summary: "List an organization's usage awaiting pricing",
        description:
          "Provider operators only. The events accepted while no price rule matched them, grouped by " +
          "operation, eval type, modality and rule metric, the group with the oldest event first. " +
          "Setting a price rule that covers a group prices its events once (POST /v1/operator/price-rules).",
        params: OrganizationParamsSchema,
        response: {
          200: json("The events awaiting pricing", AwaitingPricingReportSchema),
          ...OPERATOR_ERRORS,
          404: failure("No such organization"),
        },
      },
    },
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      return awaitingReport(deps.db, org.id);
    },
  );

  app.post(
    "/operator/price-rules",
    {
      config,
      schema: {
        tags,
        summary: "Set a price",
        description:
          "Provider operators only. A new rule for its dimensions from valid_from on; the rule open " +
          "for exactly the same dimensions ends there. Events are priced when they are ingested, by " +
          `the rule in force at their time (at most $${MAX_EVENT_COST_USD} per event); events awaiting ` +
          "pricing that the new rule covers are priced right after it is stored, once. Then the usage " +
          "already priced is re-rated: every event of an open cycle from valid_from on that the new price " +
          "prices differently gets its exact new cost (and the rollups with it); for a closed cycle, which " +
          "never changes, the difference is billed in the open cycle as correction lines naming it. The " +
          "answer says what moved. Audited (price_rule.created, and price_rule.rerated per organization " +
          "with the totals before and after).",
        body: CreateBodySchema,
        response: {
          201: json("The new rule and what it re-rated", SetPriceResultSchema),
          ...OPERATOR_ERRORS,
          404: failure("No such organization"),
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      // The organization must exist: a rule for a mistyped uuid would price nothing, silently.
      const organizationUuid = b.organization_uuid ?? null;
      if (organizationUuid && !(await organizationSummary(deps.db, organizationUuid)))
        throw new ApiError("not_found", `No organization ${organizationUuid}.`);
      const { rule, jobUuid, total } = await storePriceRule(
        deps.db,
        {
          organizationUuid,
          operation: b.operation ?? null,
          evalType: b.eval_type ?? null,
          modality: b.modality ?? null,
          ruleMetric: b.rule_metric ?? null,
          unitPrice: b.unit_price_usd,
          ...(b.valid_from ? { validFrom: new Date(b.valid_from) } : {}),
        },
        actorOf(req),
      );
      const job = await getJob(deps.db, jobUuid);
      const answer = {
        ...priceRuleJson(rule),
        rerating: { job_uuid: jobUuid, state: job?.state ?? "queued", total },
        shadowed_by: (await shadowsOf(deps.db, rule)).map(shadowJson),
      };
      // The re-rating starts in this process once the answer is ready (the serving runner would
      // take it at its next poll); on the embedded database its pages would otherwise go first.
      wakeRerating(deps.db, app.log);
      return reply.status(201).send(answer);
    },
  );
};
