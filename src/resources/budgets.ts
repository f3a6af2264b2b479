// Spend controls (GET/POST /v1/budgets, PATCH/DELETE /v1/budgets/{id}): the organization's monthly
// budget and one per workspace, with alert thresholds and an optional hard limit. Administrators
// only: members neither see nor change them (the API answers them 403). Shown on the Billing &
// Usage page and on a workspace's page, so neither resource has a route of its own.
import { ADMINS, type ConsoleResource } from "./types";

export const budgets: ConsoleResource = {
  name: "budgets",
  meta: {
    label: "Budgets",
    hide: true,
    api: {
      path: "/v1/budgets",
      idField: "budget_uuid",
      list: { rows: "budgets" },
      calls: { update: { method: "PATCH", path: "/v1/budgets/{id}" } },
    },
    access: { list: ADMINS, show: ADMINS, create: ADMINS, edit: ADMINS, delete: ADMINS },
  },
};

/**
 * The current cycle's triggered, unresolved alerts (GET /v1/budgets/alerts), read by the console's
 * alert banner. An alert has no id of its own (a budget has one per crossed threshold).
 */
export const budgetAlerts: ConsoleResource = {
  name: "budget-alerts",
  meta: {
    label: "Budget Alerts",
    hide: true,
    api: { path: "/v1/budgets/alerts", idField: "budget_uuid", list: { rows: "alerts" } },
    access: { list: ADMINS },
  },
};

/**
 * What running eval runs hold against the hard limits (GET /v1/budgets/reservations), shown beside
 * the budgets; an administrator releases one (POST /v1/budgets/reservations/{id}/release, which
 * finishes the run), through Refine's delete so the list reads itself again.
 */
export const budgetReservations: ConsoleResource = {
  name: "budget-reservations",
  meta: {
    label: "Open Reservations",
    hide: true,
    api: {
      path: "/v1/budgets/reservations",
      idField: "eval_run_uuid",
      list: { rows: "reservations", total: "total" },
      calls: { delete: { method: "POST", path: "/v1/budgets/reservations/{id}/release" } },
    },
    access: { list: ADMINS, delete: ADMINS },
  },
};
