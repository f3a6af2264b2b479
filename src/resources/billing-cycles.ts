// The organization's billing cycles, newest last as the API gives them (administrators).
import { allow, hiddenResource } from "./define";
import { ADMINS } from "./types";

export const billingCycles = hiddenResource(
  "billing-cycles",
  "Billing Cycles",
  { path: "/v1/accounts/organization/billingcycles", idField: "billing_cycle_uuid" },
  allow(ADMINS, "list", "show"),
);
