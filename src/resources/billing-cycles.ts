// The organization's billing cycles, newest last as the API gives them (administrators).
import { ADMINS, type ConsoleResource } from "./types";

export const billingCycles: ConsoleResource = {
  name: "billing-cycles",
  meta: {
    label: "Billing Cycles",
    hide: true,
    api: { path: "/v1/accounts/organization/billingcycles", idField: "billing_cycle_uuid" },
    access: { list: ADMINS, show: ADMINS },
  },
};
