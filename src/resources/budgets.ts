// Spend controls (GET/POST /v1/budgets, PATCH/DELETE /v1/budgets/{id}): the organization's monthly
// budget and one per workspace, with alert thresholds and an optional hard limit. Administrators
// only: members neither see nor change them (the API answers them 403). Shown on the Billing &
// Usage page and on a workspace's page, so neither resource has a route of its own.
import { allow, allowAll, hiddenResource, patchUpdate } from "./define";
import { ADMINS } from "./types";

export const budgets = hiddenResource(
  "budgets",
  "Budgets",
  {
    path: "/v1/budgets",
    idField: "budget_uuid",
    list: { rows: "budgets" },
    calls: patchUpdate("/v1/budgets"),
  },
  allowAll(ADMINS),
);

/**
 * The current cycle's triggered, unresolved alerts (GET /v1/budgets/alerts), read by the console's
 * alert banner. An alert has no id of its own (a budget has one per crossed threshold).
 */
export const budgetAlerts = hiddenResource(
  "budget-alerts",
  "Budget Alerts",
  { path: "/v1/budgets/alerts", idField: "budget_uuid", list: { rows: "alerts" } },
  allow(ADMINS, "list"),
);

/**
 * What running eval runs hold against the hard limits (GET /v1/budgets/reservations), shown beside
 * the budgets; an administrator releases one (POST /v1/budgets/reservations/{id}/release, which
 * finishes the run), through Refine's delete so the list reads itself again.
 */
export const budgetReservations = hiddenResource(
  "budget-reservations",
  "Open Reservations",
  {
    path: "/v1/budgets/reservations",
    idField: "eval_run_uuid",
    list: { rows: "reservations", total: "total" },
    calls: { delete: { method: "POST", path: "/v1/budgets/reservations/{id}/release" } },
  },
  allow(ADMINS, "list", "delete"),
);
