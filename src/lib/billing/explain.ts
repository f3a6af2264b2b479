// "Explain this charge": where the drill-down is (in the address, like the rest of the page's view),
// the API query for it, and the texts of its lines. Amounts are shown exact (sub-cent digits kept,
// "$0.0375"), never rounded to cents, so the parts on screen add up to the total on screen.
import { formatUnitPrice, toMicros } from "../../../contract/money";
import type { ExplainLine, ExplainNode, UsageExplain } from "../../../contract/usage-explain";
import { EXPLAIN_LEVELS, EXPLAIN_PAGE_SIZE, type ExplainLevel } from "../../../contract/usage-explain-query";

/** The address's parameters of the drill-down (the page's own are in view-url.ts). */
const KEY = {
  level: "explain",
  group: "explain_group",
  workspace: "explain_workspace",
  run: "explain_run",
  event: "explain_event",
  page: "explain_page",
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEXT = 200;
const MAX_PAGE = 100_000;

export type ExplainView = { node: ExplainNode; page: number };

export const TOP: ExplainNode = {
  level: "cycle",
  group: null,
  workspace_uuid: null,
  eval_run_uuid: null,
  usage_event_uuid: null,
};

const text = (v: string | null) => {
  const t = v?.trim() ?? "";
  return t !== "" && t.length <= MAX_TEXT ? t : null;
};
const uuid = (v: string | null) => (v && UUID.test(v.trim()) ? v.trim().toLowerCase() : null);

/**
 * The drill-down an address opens, or null when it is closed. Tolerant like the rest of the view:
 * a level whose node is incomplete (a group without its name, an event without its uuid) opens
 * the cycle's total instead, so a damaged link still opens something useful.
 */
export function parseExplain(params: URLSearchParams): ExplainView | null {
  const level = params.get(KEY.level);
  if (!EXPLAIN_LEVELS.includes(level as ExplainLevel)) return null;
  const pageText = params.get(KEY.page) ?? "";
  const page = /^\d{1,6}$/.test(pageText) ? Math.min(Math.max(Number(pageText), 1), MAX_PAGE) : 1;
  const node: ExplainNode = { ...TOP, level: level as ExplainLevel };
  if (level === "group") node.group = text(params.get(KEY.group));
  if (level === "workspace" || level === "eval_run") node.workspace_uuid = uuid(params.get(KEY.workspace));
  if (level === "eval_run") node.eval_run_uuid = text(params.get(KEY.run));
  if (level === "event") node.usage_event_uuid = uuid(params.get(KEY.event));
  if ((level === "group" && !node.group) || (level === "event" && !node.usage_event_uuid))
    return { node: TOP, page: 1 };
  return { node, page };
}

/**
 * The drill-down as query parameters for the page's address (use-billing-address), every one of
 * them named: those it does not use (all of them when closed) are `undefined`, which removes them.
 */
export function explainParams(view: ExplainView | null): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const key of Object.values(KEY)) out[key] = undefined;
  if (!view) return out;
  const { node, page } = view;
  out[KEY.level] = node.level;
  out[KEY.group] = node.group ?? undefined;
  out[KEY.workspace] = node.workspace_uuid ?? undefined;
  out[KEY.run] = node.eval_run_uuid ?? undefined;
  out[KEY.event] = node.usage_event_uuid ?? undefined;
  out[KEY.page] = page > 1 ? String(page) : undefined;
  return out;
}

/** Whether two drill-downs are the same place (null: closed). */
export const sameExplain = (a: ExplainView | null, b: ExplainView | null) =>
  JSON.stringify(explainParams(a)) === JSON.stringify(explainParams(b));

/** The API's query for a node of a cycle (GET /v1/usage/explain). */
export function explainQuery(cycleUuid: string, node: ExplainNode, page: number): Record<string, string> {
  const q: Record<string, string> = { billing_cycle_uuid: cycleUuid, level: node.level };
  if (node.group !== null) q.group = node.group;
  if (node.workspace_uuid !== null) q.workspace_uuid = node.workspace_uuid;
  if (node.eval_run_uuid !== null) q.eval_run_uuid = node.eval_run_uuid;
  if (node.usage_event_uuid !== null) q.usage_event_uuid = node.usage_event_uuid;
  if (page > 1) q.page = String(page);
  q.page_size = String(EXPLAIN_PAGE_SIZE);
  return q;
}

/** An amount exactly as the server sent it: "$1,204.0375", "-$300.00". */
export const formatExact = (value: string | bigint) =>
  formatUnitPrice(typeof value === "bigint" ? exactText(value) : value);
const exactText = (micros: bigint) => {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const frac = String(abs % 1_000_000n).padStart(6, "0");
  return `${negative ? "-" : ""}${abs / 1_000_000n}.${frac}`;
};

/** "1,204 × $0.0125 = $15.05": a rule line's arithmetic (its cost is exactly the product). */
export function arithmeticText(line: Pick<ExplainLine, "quantity" | "unit_price" | "cost">): string {
  return `${line.quantity.toLocaleString("en-US")} × ${formatUnitPrice(line.unit_price)} = ${formatExact(line.cost)}`;
}

/** What a line is, in words: its rule and version, or why it is not quantity × unit price. */
export function lineTitle(line: ExplainLine): string {
  switch (line.kind) {
    case "rule":
      return line.price_rule_uuid
        ? `Price rule ${line.price_rule_uuid.slice(0, 8)} v${line.price_rule_version ?? 1}`
        : "Priced without a rule";
    case "adjustment":
      return "Adjustment";
    case "more_adjustments":
      return `${line.events.toLocaleString("en-US")} more adjustments`;
    case "unitemized":
      return "Archived events (not itemized)";
  }
}

/** The sum of amounts (exact decimal strings) in micro-dollars. */
export const sumMicros = (amounts: readonly string[]) => amounts.reduce((t, a) => t + toMicros(a), 0n);

/**
 * What the footer shows: the sum of the parts on screen (with the pages before and after) and
 * whether it is the node's total, as the server promises it always is.
 */
export function partsCheck(a: UsageExplain): { sum: bigint; total: bigint; equal: boolean } {
  const sum = toMicros(a.earlier.cost) + sumMicros(a.parts.map((p) => p.cost)) + toMicros(a.later.cost);
  const total = toMicros(a.total);
  return { sum, total, equal: sum === total };
}

/** The same for a node's lines (an event's only check). */
export function linesCheck(a: UsageExplain): { sum: bigint; total: bigint; equal: boolean } {
  const sum = sumMicros(a.lines.map((l) => l.cost));
  const total = toMicros(a.total);
  return { sum, total, equal: sum === total };
}
