// An organization's billing cycles and payments as operators keep them (calls name the
// organization in meta.organizationId), shown on the organization's operator page. A cycle is
// opened with a POST to the collection; the open one is closed by a POST to …/close (the update
// of the open cycle: it gets its end date, and the next cycle may open). A payment is recorded on
// a cycle (the open one by default). Provider operators only.
import { allow, hiddenResource } from "./define";
import { OPERATORS } from "./types";

const organization = "/v1/operator/organizations/{organizationId}";

export const operatorBillingCycles = hiddenResource(
  "operator-billing-cycles",
  "Billing Cycles",
  {
    path: `${organization}/billing-cycles`,
    idField: "billing_cycle_uuid",
    list: { rows: "billing_cycles" },
    calls: { update: { method: "POST", path: `${organization}/billing-cycles/close` } },
  },
  allow(OPERATORS, "list", "create", "edit"),
);

export const operatorPayments = hiddenResource(
  "operator-payments",
  "Payments",
  { path: `${organization}/payments`, idField: "payment_uuid", list: { rows: "payments" } },
  allow(OPERATORS, "list", "create"),
);
