/**
 * The query vocabulary of the usage endpoints (records, summary, series, export) that the server
 * accepts and the console sends. Plain values, no zod: the console imports them at run time.
 */

/** The records' sortable columns; the sort parameter is one of them, descending with a leading "-". */
export const RECORD_SORT_FIELDS = [
  "date",
  "name",
  "operation",
  "eval_type",
  "workspace_name",
  "created_by",
  "quantity",
  "unit_price",
  "cost",
] as const;
export type RecordSortField = (typeof RECORD_SORT_FIELDS)[number];

/** ground_truth: records with or without ground truth. */
export const GROUND_TRUTH_VALUES = ["with", "without"] as const;
export type GroundTruth = (typeof GROUND_TRUTH_VALUES)[number];

/** jailbreak: jailbreak records only, or all but them. */
export const JAILBREAK_VALUES = ["only", "non"] as const;
export type Jailbreak = (typeof JAILBREAK_VALUES)[number];

/**
 * The filter set of the usage endpoints as both sides hold it: an empty list or null filters
 * nothing. Search is not part of it (the console keeps it apart from the filter bar).
 */
export type UsageFilterSet = {
  /** Empty: every workspace. */
  workspaceUuids: string[];
  /** Eval type groups (see eval-types.ts): accuracy keeps hallucination too. */
  evalTypes: string[];
  operations: string[];
  modalities: string[];
  groundTruth: GroundTruth | null;
  jailbreak: Jailbreak | null;
};

export const NO_USAGE_FILTERS: UsageFilterSet = {
  workspaceUuids: [],
  evalTypes: [],
  operations: [],
  modalities: [],
  groundTruth: null,
  jailbreak: null,
};

/** The series' buckets: UTC days, weeks starting on Sunday, months starting on the 1st. */
export const GROUPINGS = ["daily", "weekly", "monthly"] as const;
