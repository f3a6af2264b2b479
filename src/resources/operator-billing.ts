// An organization's billing cycles and payments as operators keep them (calls name the
// organization in meta.organizationId), shown on the organization's operator page. A cycle is
// opened with a POST to the collection; the open one is closed by a POST to …/close (the update
// of the open cycle: it gets its end date, and the next cycle may open). A payment is recorded on
// a cycle (the open one by default). Provider operators only.
import { type ConsoleResource, OPERATORS } from "./types";

export const operatorBillingCycles: ConsoleResource = {
  name: "operator-billing-cycles",
  meta: {
    label: "Billing Cycles",
    hide: true,
    api: {
      path: "/v1/operator/organizations/{organizationId}/billing-cycles",
      idField: "billing_cycle_uuid",
      list: { rows: "billing_cycles" },
      calls: {
        update: { method: "POST", path: "/v1/operator/organizations/{organizationId}/billing-cycles/close" },
      },
    },
    access: { list: OPERATORS, create: OPERATORS, edit: OPERATORS },
  },
};

export const operatorPayments: ConsoleResource = {
  name: "operator-payments",
  meta: {
    label: "Payments",
    hide: true,
    api: {
      path: "/v1/operator/organizations/{organizationId}/payments",
      idField: "payment_uuid",
      list: { rows: "payments" },
    },
    access: { list: OPERATORS, create: OPERATORS },
  },
};
