// The Audit Log page's pure parts: labels for the log's vocabulary, a one-line summary of an
// entry's before/after, and the filter form's values as the API's query parameters.
import type { CrudFilter } from "@refinedev/core";
import { AUDIT_ACTIONS, type AuditAction, type AuditTargetType } from "../../contract/audit-log";
import type { AuditEntry } from "../../contract/audit-log-schema";
import { filterList, filterText, formFilter } from "./table-filters";

export type { AuditEntry };

/** How a target's code reads at the start of an action's label. */
const SUBJECTS: Record<string, string> = {
  api_key: "API key",
  ingest_key: "Ingestion key",
  org_user: "Organization user",
  sso: "SSO",
  webhook_endpoint: "Webhook endpoint",
};

/** "org_user.role_changed" → "Organization user role changed". */
export function actionLabel(action: string): string {
  const dot = action.indexOf(".");
  const subject = dot < 0 ? action : action.slice(0, dot);
  const rest = dot < 0 ? "" : action.slice(dot + 1).replace(/_/g, " ");
  const head = SUBJECTS[subject] ?? subject.replace(/_/g, " ");
  const words = `${head} ${rest}`.trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What an action means, as the API's documentation says it. */
export const actionMeaning = (action: string): string =>
  (AUDIT_ACTIONS as Record<string, string>)[action] ?? "";

export const ACTION_OPTIONS = (Object.keys(AUDIT_ACTIONS) as AuditAction[]).map((value) => ({
  value,
  label: actionLabel(value),
}));

const TARGET_LABELS: Record<AuditTargetType, string> = {
  workspace: "Workspace",
  workspace_member: "Workspace member",
  org_user: "Organization user",
  organization: "Organization",
  invitation: "Invitation",
  api_key: "API key",
  ingest_key: "Ingestion key",
  sso_connection: "Single sign-on",
  usage_event: "Usage event",
  user: "User",
  budget: "Budget",
  eval_run: "Eval run",
  webhook_endpoint: "Webhook endpoint",
  price_rule: "Price rule",
  billing_cycle: "Billing cycle",
  payment: "Payment",
  workspace_group: "Workspace group",
  event_partition: "Usage event month",
  audit_log: "Audit log",
};

export const targetTypeLabel = (t: string): string => TARGET_LABELS[t as AuditTargetType] ?? t;

export const TARGET_TYPE_OPTIONS = Object.entries(TARGET_LABELS).map(([value, label]) => ({ value, label }));

const SOURCE_LABELS: Record<string, string> = { console: "Console", api_key: "API key", cli: "Command line" };
export const sourceLabel = (s: string): string => SOURCE_LABELS[s] ?? s;

function show(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (Array.isArray(v)) return v.length ? v.map(show).join(", ") : "none";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * The change in one line: "role: Member → Admin" for fields that differ, "name: Red Team" for a
 * field only before or after; "" when the entry carries neither.
 */
export function changeSummary(entry: Pick<AuditEntry, "before" | "after">): string {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const parts: string[] = [];
  for (const key of keys) {
    const label = key.replace(/_/g, " ");
    const inBefore = key in before;
    const inAfter = key in after;
    if (inBefore && inAfter) {
      if (show(before[key]) !== show(after[key]))
        parts.push(`${label}: ${show(before[key])} → ${show(after[key])}`);
    } else parts.push(`${label}: ${show(inAfter ? after[key] : before[key])}`);
  }
  return parts.join("; ");
}

/** The filter form's values. Dates are YYYY-MM-DD days, both included. */
export type AuditFilterValues = {
  actor?: string;
  action?: string[];
  target_type?: string;
  target_id?: string;
  from?: string;
  to?: string;
};

/** The day after a YYYY-MM-DD day (the API's ending_at is exclusive). */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The query parameters of the form's values, for the list and the CSV export alike. */
export function auditQuery(v: AuditFilterValues): Record<string, string | string[]> {
  const q: Record<string, string | string[]> = {};
  if (v.actor?.trim()) q.actor = v.actor.trim();
  if (v.action?.length) q.action = v.action;
  if (v.target_type) q.target_type = v.target_type;
  if (v.target_id?.trim()) q.target_id = v.target_id.trim();
  if (v.from) q.starting_at = v.from;
  if (v.to) q.ending_at = nextDay(v.to);
  return q;
}

/** The day before a YYYY-MM-DD day. */
export function previousDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/**
 * The filter form's values as Refine's filters, named as the API's query parameters (the URL keeps
 * them). Every field of the form is present: an empty one is `undefined`, which removes its filter.
 * Actor and action are their columns' filters (Refine's FilterDropdown), so the form leaves them.
 */
export function auditFilters(v: AuditFilterValues): CrudFilter[] {
  const q = auditQuery(v);
  return [
    formFilter("target_type", "eq", q.target_type),
    formFilter("target_id", "eq", q.target_id),
    formFilter("starting_at", "gte", q.starting_at),
    formFilter("ending_at", "lt", q.ending_at),
  ];
}

/** The form's values from Refine's filters (as the URL carries them): the inverse of auditFilters. */
export function auditFilterValues(filters: CrudFilter[]): AuditFilterValues {
  const text = (field: string, op: "eq" | "gte" | "lt" = "eq") => filterText(filters, field, op) || undefined;
  const action = filterList(filters, "action");
  const ending = text("ending_at", "lt");
  return {
    actor: text("actor"),
    action: action.length ? action : undefined,
    target_type: text("target_type"),
    target_id: text("target_id"),
    from: text("starting_at", "gte"),
    to: ending ? previousDay(ending) : undefined,
  };
}

/** "2026-11-24 04:12:15 UTC": entries are read across time zones, so times are shown in UTC. */
export function formatAuditTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
