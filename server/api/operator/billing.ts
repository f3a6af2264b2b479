import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { amountDueMicros, cycleBalanceMicros } from "../../../contract/cycle-balance";
import { formatUsdExact } from "../../../contract/money";
import { closeCycle, openCycle, recordPayment } from "../../metering/billing/billing";
import {
  type Cycle,
  type CycleTotals,
  cycleTotalMicros,
  groupTotalsOfCycles,
  listCycles,
} from "../../metering/billing/cycles";
import { listPayments } from "../../metering/billing/ledger";
import type { Db } from "../../platform/database";
import { dayField, textField, usdField, uuidField } from "../fields";
import type { OperatorRouteDeps, RouteApp } from "../route-deps";
import { failure, json } from "../schemas";
import {
  MAX_OPERATOR_AMOUNT_USD,
  OPERATOR_ERRORS,
  OrganizationParamsSchema,
  optionalBody,
  organizationOf,
} from "./common";
import { installOperatorGuard, operatorRoute } from "./guard";

const OperatorCycleSchema = z
  .object({
    billing_cycle_uuid: z.uuid(),
    start_date: z.string().meta({ description: "YYYY-MM-DD; the cycle starts at midnight UTC." }),
    end_date: z.string().nullable().meta({ description: "YYYY-MM-DD, exclusive; null while open." }),
    status: z.enum(["open", "closed"]),
    total_cost_usd: z.string().meta({
      description: "The cycle's total cost, as the customer's Billing page shows it; exact decimal string.",
    }),
    balance_usd: z.string().meta({
      description:
        "The workspace groups' cost beyond their prepaid amounts plus the cost without a workspace (the customer's Balance); payments not subtracted.",
    }),
    paid_usd: z.string().meta({ description: "Sum of the cycle's payments, exact decimal string." }),
    amount_due_usd: z.string().meta({
      description: "What is still to pay: balance_usd less paid_usd, never below zero.",
    }),
  })
  .meta({ id: "OperatorBillingCycle" });

const PaymentSchema = z
  .object({
    payment_uuid: z.uuid(),
    billing_cycle_uuid: z.uuid(),
    amount_usd: z.string().meta({ description: "Exact decimal string; negative for a refund." }),
    note: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Payment" });

const OpenBodySchema = optionalBody("OpenCycleBody", {
  start_date: dayField("start_date")
    .optional()
    .meta({ description: "YYYY-MM-DD; default the 1st of this month (UTC)." }),
});

const CloseBodySchema = optionalBody("CloseCycleBody", {
  end_date: dayField("end_date")
    .optional()
    .meta({ description: "YYYY-MM-DD, exclusive; default the 1st of this month (UTC)." }),
  open_next: z
    .boolean({ error: "open_next must be true or false." })
    .optional()
    .meta({ description: "Open the next cycle from end_date (default true)." }),
});

const PaymentBodySchema = z
  .strictObject({
    amount_usd: usdField("amount_usd", { maxUsd: MAX_OPERATOR_AMOUNT_USD, negative: true }),
    billing_cycle_uuid: uuidField("billing_cycle_uuid")
      .optional()
      .meta({ description: "Default: the open cycle (else the latest)." }),
    note: textField("note", 1000).optional(),
  })
  .meta({ id: "PaymentBody" });

/** A cycle with the figures of the customer's totals strip (cycles.ts computes both). */
function cycleJson(c: Cycle, totals: CycleTotals) {
  const balance = cycleBalanceMicros(
    totals.unattributedMicros,
    totals.groups.map((g) => g.balanceMicros),
  );
  return {
    billing_cycle_uuid: c.billingCycleUuid,
    start_date: c.startDate,
    end_date: c.endDate,
    status: c.endDate === null ? ("open" as const) : ("closed" as const),
    total_cost_usd: formatUsdExact(cycleTotalMicros(totals)),
    balance_usd: formatUsdExact(balance),
    paid_usd: formatUsdExact(totals.paidMicros),
    amount_due_usd: formatUsdExact(amountDueMicros(balance, totals.paidMicros)),
  };
}

/** The organization's stored cycles as cycleJson answers them, newest first. */
async function cyclesJson(db: Db, organizationUuid: string) {
  const listed = await groupTotalsOfCycles(db, organizationUuid, await listCycles(db, organizationUuid));
  return listed.reverse().map(({ cycle, totals }) => cycleJson(cycle, totals));
}

const errors = { ...OPERATOR_ERRORS, 404: failure("No such organization (or billing cycle)") };

/** /v1/operator/organizations/{organization}/payments: the organization's payments, listed and recorded. */
function paymentRoutes(
  app: RouteApp,
  deps: OperatorRouteDeps,
  actorOf: ReturnType<typeof installOperatorGuard>,
) {
  app.get(
    "/operator/organizations/:organization/payments",
    operatorRoute({
      summary: "List an organization's payments",
      description: "Provider operators only. Newest first.",
      params: OrganizationParamsSchema,
      response: { 200: json("The payments", z.object({ payments: z.array(PaymentSchema) })), ...errors },
    }),
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const rows = await listPayments(deps.db, org.id);
      return {
        payments: rows.map((p) => ({
          payment_uuid: p.paymentUuid,
          billing_cycle_uuid: p.billingCycleUuid,
          amount_usd: formatUsdExact(p.amountMicros),
          note: p.note,
          created_at: p.paidAt.toISOString(),
        })),
      };
    },
  );

  app.post(
    "/operator/organizations/:organization/payments",
    operatorRoute({
      summary: "Record a payment",
      description:
        "Provider operators only. On the named cycle, else the open one (else the latest). Audited " +
        "(payment.recorded).",
      params: OrganizationParamsSchema,
      body: PaymentBodySchema,
      response: {
        201: json("The payment", PaymentSchema),
        ...errors,
        409: failure("The organization has no billing cycle yet"),
      },
    }),
    async (req, reply) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const b = req.body;
      const p = await recordPayment(deps.db, org.id, {
        amountMicros: b.amount_usd,
        ...(b.billing_cycle_uuid ? { billingCycleUuid: b.billing_cycle_uuid } : {}),
        note: b.note ?? null,
        actor: actorOf(req),
      });
      return reply.status(201).send({
        payment_uuid: p.paymentUuid,
        billing_cycle_uuid: p.cycle.billingCycleUuid,
        amount_usd: formatUsdExact(b.amount_usd),
        note: b.note ?? null,
        created_at: p.paidAt.toISOString(),
      });
    },
  );
}

/**
 * /v1/operator/organizations/{organization}/billing-cycles and …/payments: an organization's
 * billing cycles (open, close) and payments, for provider operators. Each change is one
 * transaction with its audit row; a refused one (another cycle open, nothing to close, dates that
 * overlap) writes nothing.
 */
export const operatorBillingRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "manage billing cycles and payments");
  /** Some of the organization's cycles as listed, by uuid (one read of the totals for all). */
  const cyclesOf = async (orgId: string) => {
    const listed = await cyclesJson(deps.db, orgId);
    return (uuid: string) => {
      const found = listed.find((c) => c.billing_cycle_uuid === uuid);
      if (!found) throw new Error(`billing cycle ${uuid} not listed`);
      return found;
    };
  };

  app.get(
    "/operator/organizations/:organization/billing-cycles",
    operatorRoute({
      summary: "List an organization's billing cycles",
      description:
        "Provider operators only. The stored cycles, newest first, with the figures of the customer's " +
        "totals strip: total cost, balance, what was paid and what is still due.",
      params: OrganizationParamsSchema,
      response: {
        200: json("The cycles", z.object({ billing_cycles: z.array(OperatorCycleSchema) })),
        ...errors,
      },
    }),
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      return { billing_cycles: await cyclesJson(deps.db, org.id) };
    },
  );

  app.post(
    "/operator/organizations/:organization/billing-cycles",
    operatorRoute({
      summary: "Open a billing cycle",
      description:
        "Provider operators only. Refused (409) while another cycle is open or before the last one " +
        "ends. Audited (billing_cycle.opened).",
      params: OrganizationParamsSchema,
      body: OpenBodySchema,
      response: {
        201: json("The opened cycle", OperatorCycleSchema),
        ...errors,
        409: failure("Another cycle is open, or the last one ends later"),
      },
    }),
    async (req, reply) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const cycle = await openCycle(deps.db, org.id, req.body?.start_date, { actor: actorOf(req) });
      return reply.status(201).send((await cyclesOf(org.id))(cycle.billingCycleUuid));
    },
  );

  app.post(
    "/operator/organizations/:organization/billing-cycles/close",
    operatorRoute({
      summary: "Close the open billing cycle",
      description:
        "Provider operators only. Ends the open cycle at end_date (exclusive) and, unless open_next " +
        "is false, opens the next from that day. Audited (billing_cycle.closed).",
      params: OrganizationParamsSchema,
      body: CloseBodySchema,
      response: {
        200: json(
          "The closed cycle and the one opened after it",
          z.object({ closed: OperatorCycleSchema, opened: OperatorCycleSchema.nullable() }),
        ),
        ...errors,
        409: failure("No open cycle, or an end date not after its start"),
      },
    }),
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const body = req.body ?? {};
      const { closed, opened } = await closeCycle(deps.db, org.id, {
        ...(body.end_date ? { endDate: body.end_date } : {}),
        openNext: body.open_next ?? true,
        actor: actorOf(req),
      });
      const listed = await cyclesOf(org.id);
      return {
        closed: listed(closed.billingCycleUuid),
        opened: opened ? listed(opened.billingCycleUuid) : null,
      };
    },
  );

  paymentRoutes(app, deps, actorOf);
};
