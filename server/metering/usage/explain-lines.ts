/**
 * The arithmetic of "Explain this charge", apart from any database: usage rows grouped by price
 * rule become lines whose sum is the node's cost to the micro-dollar, and a node's parts are paged
 * with the sums of the pages before and after, so what is shown always adds up to the total.
 */

import { formatUsdExact, parseUsd } from "../../../contract/money";
import { EXPLAIN_MAX_ADJUSTMENT_LINES, type ExplainLine } from "../../../contract/usage-explain";

/**
 * Usage of one part grouped by the rule that priced it and its unit price. An adjustment (an
 * event whose cost is not quantity × unit price: a credit, a charge, a late-usage or price
 * correction line) is a row of its own, with its event's uuid, notes and time.
 */
export type UsageRow = {
  key: string | null;
  ruleUuid: string | null;
  ruleVersion: number | null;
  unitPriceMicros: bigint;
  adjustment: boolean;
  eventUuid: string | null;
  events: number;
  quantity: number;
  costMicros: bigint;
  notes: string | null;
  occurredAt: string | null;
};

/** The sum of lines (or parts) in micro-dollars. */
export const sumOfLines = (lines: readonly ExplainLine[]) => lines.reduce((t, l) => t + parseUsd(l.cost), 0n);

const line = (over: Partial<ExplainLine> & Pick<ExplainLine, "kind" | "cost">): ExplainLine => ({
  price_rule_uuid: null,
  price_rule_version: null,
  unit_price: null,
  quantity: 0,
  events: 0,
  notes: null,
  usage_event_uuid: null,
  occurred_at: null,
  ...over,
});

const byCostDesc = (a: bigint, b: bigint) => (a > b ? -1 : a < b ? 1 : 0);
const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * The lines of rows (one part's, or a whole node's): one per rule version and unit price, its cost
 * the exact product quantity × unit price (equal to the rows' sum, since a non-adjustment event
 * costs exactly that); then the adjustments, the largest first, at most EXPLAIN_MAX_ADJUSTMENT_LINES
 * of them one by one and the rest on one line; then `unitemized`, usage the bill counts but whose
 * events are archived, when there is any. The lines add up to the rows' cost plus `unitemized`.
 */
export function linesOf(rows: readonly UsageRow[], unitemized = 0n): ExplainLine[] {
  const rules = new Map<string, { row: UsageRow; quantity: number; events: number; cost: bigint }>();
  const adjustments: UsageRow[] = [];
  for (const r of rows) {
    if (r.adjustment) {
      adjustments.push(r);
      continue;
    }
    const key = `${r.ruleUuid ?? ""}|${r.unitPriceMicros}`;
    const was = rules.get(key) ?? { row: r, quantity: 0, events: 0, cost: 0n };
    was.quantity += r.quantity;
    was.events += r.events;
    was.cost += r.costMicros;
    rules.set(key, was);
  }
  const ruleLines = [...rules.values()]
    .sort((a, b) => byCostDesc(a.cost, b.cost) || (a.row.ruleUuid ?? "").localeCompare(b.row.ruleUuid ?? ""))
    .map(({ row, quantity, events }) =>
      line({
        kind: "rule",
        price_rule_uuid: row.ruleUuid,
        price_rule_version: row.ruleUuid ? row.ruleVersion : null,
        unit_price: formatUsdExact(row.unitPriceMicros),
        quantity,
        events,
        // The product, not the rows' sum: the two are equal, and the product is the explanation.
        cost: formatUsdExact(BigInt(quantity) * row.unitPriceMicros),
      }),
    );
  adjustments.sort(
    (a, b) =>
      byCostDesc(abs(a.costMicros), abs(b.costMicros)) ||
      (a.eventUuid ?? "").localeCompare(b.eventUuid ?? ""),
  );
  const listed = adjustments.slice(0, EXPLAIN_MAX_ADJUSTMENT_LINES).map((r) =>
    line({
      kind: "adjustment",
      price_rule_uuid: r.ruleUuid,
      price_rule_version: r.ruleUuid ? r.ruleVersion : null,
      unit_price: formatUsdExact(r.unitPriceMicros),
      quantity: r.quantity,
      events: r.events,
      cost: formatUsdExact(r.costMicros),
      notes: r.notes,
      usage_event_uuid: r.eventUuid,
      occurred_at: r.occurredAt,
    }),
  );
  const rest = adjustments.slice(EXPLAIN_MAX_ADJUSTMENT_LINES);
  if (rest.length)
    listed.push(
      line({
        kind: "more_adjustments",
        quantity: rest.reduce((t, r) => t + r.quantity, 0),
        events: rest.reduce((t, r) => t + r.events, 0),
        cost: formatUsdExact(rest.reduce((t, r) => t + r.costMicros, 0n)),
      }),
    );
  if (unitemized !== 0n) listed.push(line({ kind: "unitemized", cost: formatUsdExact(unitemized) }));
  return [...ruleLines, ...listed];
}

/** The rows' events, quantity and cost. */
export function rowSums(rows: readonly UsageRow[]) {
  let events = 0;
  let costMicros = 0n;
  for (const r of rows) {
    events += r.events;
    costMicros += r.costMicros;
  }
  return { events, costMicros };
}

/** Rows by their key (the part they belong to). */
export function rowsByKey(rows: readonly UsageRow[]): Map<string | null, UsageRow[]> {
  const out = new Map<string | null, UsageRow[]>();
  for (const r of rows) {
    const list = out.get(r.key) ?? [];
    list.push(r);
    out.set(r.key, list);
  }
  return out;
}

/**
 * One page of parts (already in their order) with the count and cost of the parts before and
 * after it, so earlier + page + later is every part, whichever page is shown.
 */
export function pageOf<T extends { costMicros: bigint }>(
  parts: readonly T[],
  page: number,
  pageSize: number,
) {
  const from = (page - 1) * pageSize;
  const shown = parts.slice(from, from + pageSize);
  const sum = (list: readonly T[]) => list.reduce((t, p) => t + p.costMicros, 0n);
  const before = parts.slice(0, Math.min(from, parts.length));
  const after = parts.slice(from + shown.length);
  return {
    shown,
    earlier: { parts: before.length, cost: formatUsdExact(sum(before)) },
    later: { parts: after.length, cost: formatUsdExact(sum(after)) },
  };
}

/** Parts in the order they are shown: the largest cost first, then by label, then by key. */
export const partOrder = (
  a: { costMicros: bigint; label: string; key: string | null },
  b: { costMicros: bigint; label: string; key: string | null },
) =>
  byCostDesc(a.costMicros, b.costMicros) ||
  a.label.localeCompare(b.label) ||
  (a.key ?? "").localeCompare(b.key ?? "");
