import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BillingCycleSchema, MAX_CYCLE_EVENTS } from "../../contract/billing-cycle-schema";
import { formatUsdExact } from "../../contract/money";
import {
  type CycleCostsCache,
  cachedCycleCostsAt,
  createCycleCostsCache,
} from "../metering/billing/cycle-costs-cache";
import {
  type Cycle,
  type CycleTotals,
  cycleOf,
  cyclesOrCurrentAtVersion,
  cycleTotalMicros,
  groupTotals,
  groupTotalsOfCycles,
} from "../metering/billing/cycles";
import { newestEvents } from "../metering/usage/records";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import { uuidField } from "./fields";
import { adminOrg } from "./route-hooks";
import { failure, json } from "./schemas";

const QuerySchema = z.strictObject({
  billing_cycle_uuid: uuidField("billing_cycle_uuid").optional(),
});

function cycleJson(cycle: Cycle, totals: CycleTotals) {
  const { groups, unattributedMicros, paidMicros } = totals;
  const total = cycleTotalMicros(totals);
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    billing_cycle_start_date: cycle.startDate,
    billing_cycle_end_date: cycle.endDate,
    paid_amount_usd: formatUsdExact(paidMicros),
    total_cost: formatUsdExact(total),
    unattributed_cost: formatUsdExact(unattributedMicros),
    workspace_groups: groups.map((g) => ({
      group_name: g.groupName,
      total_cost: formatUsdExact(g.totalMicros),
      balance_remaining: formatUsdExact(g.balanceMicros),
    })),
  };
}

/** GET /v1/accounts/organization/billingcycles: the organization's billing cycles (administrators). */
export const billingCycleRoutes: FastifyPluginAsyncZod<{
  db: Db;
  readDb?: Db;
  costsCache?: CycleCostsCache;
}> = async (app, deps) => {
  // Reads only: a replica when one is configured.
  const db = deps.readDb ?? deps.db;
  const costsCache = deps.costsCache ?? createCycleCostsCache();
  app.get(
    "/accounts/organization/billingcycles",
    {
      config: { auth: "bearer", admin: "see billing cycles" },
      schema: {
        tags: ["Accounts"],
        summary: "Billing cycles of the organization",
        description:
          "Without billing_cycle_uuid: every cycle, start date ascending, with cost per workspace group " +
          "(usage events left out). With it: that one cycle, with its newest usage events. An " +
          "organization gets its first cycle with its first usage; before that, this lists its current " +
          "monthly cycle (from the 1st of this month, empty) under the uuid that cycle will have.",
        querystring: QuerySchema,
        response: {
          200: json(
            "The cycles (an array), or one cycle when billing_cycle_uuid is given",
            z.union([z.array(BillingCycleSchema), BillingCycleSchema]),
          ),
          400: failure("billing_cycle_uuid is not a UUID"),
          401: failure("Not signed in"),
          403: failure("Not an organization administrator"),
          404: failure("No such billing cycle in the organization"),
        },
      },
    },
    async (req) => {
      // The usage version comes with the cycles, before the costs it keys (cycle-costs-cache.ts),
      // and so do their payments.
      const { cycles, version, paid } = await cyclesOrCurrentAtVersion(db, adminOrg(req).org_id);
      const uuid = req.query.billing_cycle_uuid;
      if (!uuid) {
        const costs = cachedCycleCostsAt(costsCache, version);
        const listed = await groupTotalsOfCycles(db, adminOrg(req).org_id, cycles, costs, paid);
        return listed.map(({ cycle, totals }) => ({
          ...cycleJson(cycle, totals),
          usage_breakdown: { usage_events: [] },
        }));
      }
      const cycle = cycleOf(cycles, uuid);
      if (!cycle) throw new ApiError("not_found", "Billing cycle not found.");
      const { events, truncated } = await newestEvents(db, cycle, MAX_CYCLE_EVENTS);
      return {
        ...cycleJson(cycle, await groupTotals(db, cycle)),
        usage_breakdown: { usage_events: events, usage_events_truncated: truncated },
      };
    },
  );
};
