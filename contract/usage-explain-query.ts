/**
 * The plain values of "Explain this charge" (GET /v1/usage/explain): its levels, page sizes and line
 * kinds. No zod: the console imports them at run time (the schemas are in usage-explain.ts).
 */

/** The levels of the drill-down, from the cycle's total down to one event. */
export const EXPLAIN_LEVELS = ["cycle", "group", "workspace", "eval_run", "event"] as const;
export type ExplainLevel = (typeof EXPLAIN_LEVELS)[number];

/** The level a node's parts are on (an event has lines only). */
export const PARTS_LEVEL: Record<ExplainLevel, ExplainLevel | null> = {
  cycle: "group",
  group: "workspace",
  workspace: "eval_run",
  eval_run: "event",
  event: null,
};

/** Parts per page: default and most. */
export const EXPLAIN_PAGE_SIZE = 50;
export const EXPLAIN_MAX_PAGE_SIZE = 200;

/** Adjustments listed one by one in a node or part; the rest are summed on one line. */
export const EXPLAIN_MAX_ADJUSTMENT_LINES = 10;

export const EXPLAIN_LINE_KINDS = ["rule", "adjustment", "more_adjustments", "unitemized"] as const;
export type ExplainLineKind = (typeof EXPLAIN_LINE_KINDS)[number];
