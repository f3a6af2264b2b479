/**
 * What a budget and its preview may hold, as plain values: the server's schemas (budgets.ts,
 * budget-simulation.ts) validate with them, and the console's budget dialog refuses the same input
 * with them. No zod here: the console imports these at run time, and the schemas' modules only as
 * types (tests/unit/console-imports.test.ts).
 */

/** Alert thresholds a new budget gets when none are given, in percent of its amount. */
export const DEFAULT_BUDGET_THRESHOLDS = [50, 80, 100] as const;
/** At most this many thresholds per budget, each a whole percent in 1..1000. */
export const MAX_BUDGET_THRESHOLDS = 10;
export const MAX_BUDGET_THRESHOLD_PERCENT = 1000;

export const BUDGET_SCOPES = ["organization", "workspace"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** The largest budget amount accepted, in USD (a bound far above any real bill). */
export const MAX_BUDGET_AMOUNT_USD = 1_000_000_000;

/** How far back a budget's preview (a replay of real usage) may look: one year of daily rollups. */
export const MAX_SIMULATION_DAYS = 366;
/** What the console's preview asks for. */
export const DEFAULT_SIMULATION_DAYS = 90;
