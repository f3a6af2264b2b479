// Shapes of the product API's billing and usage responses (money as exact decimal strings).

export type WorkspaceGroup = { group_name: string; total_cost: string; balance_remaining: string };

export type BillingCycle = {
  billing_cycle_uuid: string;
  billing_cycle_start_date: string;
  /** null: the current cycle. */
  billing_cycle_end_date: string | null;
  paid_amount_usd: string;
  total_cost?: string;
  unattributed_cost?: string;
  workspace_groups: WorkspaceGroup[];
};

export type UsageRecord = {
  usage_event_uuid: string;
  date: string;
  name: string | null;
  operation: string;
  eval_type: string;
  created_by: string | null;
  quantity: number | null;
  unit_price: string | number | null;
  cost: string | number | null;
  eval_uuid: string | null;
  eval_run_uuid: string | null;
  workspace_uuid: string | null;
  workspace_name: string | null;
  notes: string | null;
  price_rule_uuid: string | null;
  rule_metric: string | null;
  modality: string | null;
  is_jailbreak: boolean;
  has_ground_truth: boolean;
};

export type Sums = { events: number; count: number; cost: string };

/** The part of a row's sums that is credits and other price adjustments (absent from older servers). */
type Adjusted = { adjustments?: Sums };

export type UsageSummary = {
  billing_cycle_uuid: string;
  data_as_of: string;
  totals: Sums;
  adjustments?: Sums;
  /** The adjustments split into credits (negative) and charges (positive). */
  credits?: Sums;
  charges?: Sums;
  by_operation: (Sums & Adjusted & { operation: string; rule_metric: string })[];
  by_workspace: (Sums & Adjusted & { workspace_uuid: string | null; workspace_name: string })[];
  by_eval_type: (Sums & Adjusted & { eval_type: string })[];
  filter_options: {
    eval_types: string[];
    operations: string[];
    modalities: string[];
    workspaces: { workspace_uuid: string; workspace_name: string }[];
  };
};

export type Grouping = "daily" | "weekly" | "monthly";

export type SeriesSums = { events: number; count: number; price: string };

export type SeriesBucket = {
  date: string;
  events: number;
  total_count: number;
  total_price: string;
  /** Credits and other price adjustments among the bucket's sums. */
  adjustments?: SeriesSums;
  eval_types: (SeriesSums & { eval_type: string; adjustments?: SeriesSums })[];
};

export type UsageSeries = { billing_cycle_uuid: string; grouping: Grouping; buckets: SeriesBucket[] };
