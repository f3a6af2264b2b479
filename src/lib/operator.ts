// The operator area's records (the shapes of /v1/operator/…) and its words: price rule statuses
// and dimensions, billing cycle periods, amounts sent as exact decimal strings, and the bodies
// of its forms. Pure functions; the pages and their tests share them.
import dayjs, { type Dayjs } from "dayjs";
import utc from "dayjs/plugin/utc";
import { evalTypeLabel, NAMED_EVAL_TYPES } from "../../contract/eval-types";
import { formatUtcDate } from "./billing/dates";

dayjs.extend(utc);

export type OperatorOrganization = {
  organization_uuid: string;
  name: string;
  slug: string;
  created_at: string;
  member_count: number;
};

export type RuleMetric = "eval" | "prompt";
export type PriceRuleStatus = "active" | "scheduled" | "ended";

export type PriceRule = {
  price_rule_uuid: string;
  organization_uuid: string | null;
  operation: string | null;
  eval_type: string | null;
  modality: string | null;
  rule_metric: RuleMetric | null;
  unit_price_usd: string;
  valid_from: string;
  valid_to: string | null;
  status: PriceRuleStatus;
  /** A rule of the default price list shipped with the product (ranked below operators' rules). */
  built_in?: boolean;
  /** The re-rating job this price started (the list answers it; null: none). */
  rerating_job_uuid?: string | null;
};

export type OperatorBillingCycle = {
  billing_cycle_uuid: string;
  start_date: string;
  end_date: string | null;
  status: "open" | "closed";
  /** The figures of the customer's totals strip: total cost, balance (beyond prepaid credit), paid. */
  total_cost_usd: string;
  balance_usd: string;
  paid_usd: string;
  /** The balance less the payments, never below zero. */
  amount_due_usd: string;
};

export type CloseCycleAnswer = { closed: OperatorBillingCycle; opened: OperatorBillingCycle | null };

export type Payment = {
  payment_uuid: string;
  billing_cycle_uuid: string;
  amount_usd: string;
  note: string | null;
  created_at: string;
};

export type IngestKey = {
  ingest_key_uuid: string;
  name: string;
  organization_uuid: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

export type NewIngestKey = IngestKey & { token: string };

/** The price rules list's scope filter: "global" or an organization's uuid; none: every rule. */
export const GLOBAL_SCOPE = "global";

export const PRICE_RULE_STATUS: Record<PriceRuleStatus, { color: string; label: string }> = {
  active: { color: "success", label: "Active" },
  scheduled: { color: "processing", label: "Scheduled" },
  ended: { color: "default", label: "Ended" },
};

/** A rule's dimension left open matches anything. */
export const ANY = "Any";

export const RULE_METRIC_LABELS: Record<RuleMetric, string> = { eval: "Per eval", prompt: "Per prompt" };

export const ruleMetricLabel = (metric: RuleMetric | null) => (metric ? RULE_METRIC_LABELS[metric] : ANY);

/** An operation or modality of a rule as it matches events ("generation"); "Any" when left open. */
export const dimensionLabel = (value: string | null) => value ?? ANY;

/** A rule's time in UTC to the minute, for a column headed "(UTC)": "Oct 15, 2026 08:30". */
export const formatRuleTime = (iso: string) => dayjs.utc(iso).format("MMM D, YYYY HH:mm");

/** An eval type of a rule by its group's label ("Accuracy" for hallucination too); "Any" when open. */
export const ruleEvalTypeLabel = (value: string | null) => (value ? evalTypeLabel(value) : ANY);

/** The usual values, offered as suggestions; any other text is accepted. */
export const OPERATION_SUGGESTIONS = ["generation", "scoring"];
export const MODALITY_SUGGESTIONS = ["text", "image", "audio"];
export const EVAL_TYPE_SUGGESTIONS = [...NAMED_EVAL_TYPES.keys()].map((value) => ({
  value,
  label: `${value} (${evalTypeLabel(value)})`,
}));

/** A billing cycle's period: "Nov 1, 2026 - Present" while open. */
export const cyclePeriod = (c: Pick<OperatorBillingCycle, "start_date" | "end_date">) =>
  `${formatUtcDate(c.start_date)} - ${c.end_date ? formatUtcDate(c.end_date) : "Present"}`;

/** USD as the API takes it: an exact decimal string of at most 6 decimals ("12.50", "0.0125"). */
export const USD_PATTERN = /^\d{1,13}(\.\d{1,6})?$/;
/** A payment may be negative (a refund). */
export const SIGNED_USD_PATTERN = /^-?\d{1,13}(\.\d{1,6})?$/;

/** An optional text field: trimmed, or left out when blank. */
const optionalText = (value: unknown): string | undefined => {
  const text = typeof value === "string" ? value.trim() : "";
  return text === "" ? undefined : text;
};

export type PriceRuleFormValues = {
  scope: string;
  operation?: string;
  eval_type?: string;
  modality?: string;
  rule_metric?: RuleMetric | null;
  unit_price_usd: string;
  valid_from?: Dayjs | null;
};

/** A date and time picked in the form, read as UTC (as the pages show times): its ISO instant. */
export const utcInstant = (d: Dayjs) => dayjs.utc(d.format("YYYY-MM-DDTHH:mm:ss")).toISOString();

/** The body of POST /v1/operator/price-rules from the form: open dimensions and "now" are left out. */
export function priceRuleBody(v: PriceRuleFormValues) {
  return {
    organization_uuid: v.scope === GLOBAL_SCOPE ? null : v.scope,
    operation: optionalText(v.operation),
    eval_type: optionalText(v.eval_type),
    modality: optionalText(v.modality),
    rule_metric: v.rule_metric ?? undefined,
    unit_price_usd: v.unit_price_usd.trim(),
    valid_from: v.valid_from ? utcInstant(v.valid_from) : undefined,
  };
}

export type OpenCycleFormValues = { start_date?: Dayjs | null };
export type CloseCycleFormValues = { end_date?: Dayjs | null; open_next: boolean };
export type PaymentFormValues = { amount_usd: string; billing_cycle_uuid?: string; note?: string };
export type IngestKeyFormValues = { name?: string; organization?: string | null };

/** A day picked in the form as the API's "YYYY-MM-DD" (the calendar day shown), or left out. */
export const dayValue = (d: Dayjs | null | undefined) => (d ? d.format("YYYY-MM-DD") : undefined);

export const openCycleBody = (v: OpenCycleFormValues) => ({ start_date: dayValue(v.start_date) });

export const closeCycleBody = (v: CloseCycleFormValues) => ({
  end_date: dayValue(v.end_date),
  open_next: v.open_next,
});

export const paymentBody = (v: PaymentFormValues) => ({
  amount_usd: v.amount_usd.trim(),
  billing_cycle_uuid: v.billing_cycle_uuid || undefined,
  note: optionalText(v.note),
});

export const ingestKeyBody = (v: IngestKeyFormValues) => ({
  name: optionalText(v.name),
  organization: v.organization || undefined,
});
