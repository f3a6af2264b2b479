import { expect } from "vitest";
import { parseUsd } from "../../contract/money";
import type { FilterableRecord, UsageFilters } from "../../server/metering/usage/filters";

// What the usage suites read back from the API: filters as a query string, every record of a
// cycle page by page, and money summed exactly.

/** The exact sum, in micro-dollars, of decimal-string amounts. */
export const usdMicros = (values: string[]) => values.reduce((t, v) => t + parseUsd(v), 0n);

/** The usage filters as the API's query parameters, plus `extra` ones (cycle, paging, grouping). */
export function usageQuery(f: UsageFilters, extra: Record<string, string | number> = {}): string {
  const q = new URLSearchParams();
  for (const w of f.workspaceUuids) q.append("workspace_uuid", w);
  for (const v of f.evalTypes) q.append("eval_type", v);
  for (const v of f.operations) q.append("operation", v);
  for (const v of f.modalities) q.append("modality", v);
  if (f.groundTruth) q.set("ground_truth", f.groundTruth);
  if (f.jailbreak) q.set("jailbreak", f.jailbreak);
  if (f.search) q.set("search", f.search);
  for (const [k, v] of Object.entries(extra)) q.set(k, String(v));
  return q.toString();
}

/**
 * Every record of `cycle` that `f` keeps, paged through 500 at a time with `get` (a GET that
 * answers the JSON body); the total the API reports must be exactly the rows paged through.
 */
export async function allRecords<R>(
  get: (url: string) => Promise<{ records: R[]; total: number }>,
  cycle: string,
  f: UsageFilters,
): Promise<R[]> {
  const out: R[] = [];
  for (let page = 1; ; page++) {
    const r = await get(
      `/v1/usage/records?${usageQuery(f, { billing_cycle_uuid: cycle, page, page_size: 500 })}`,
    );
    out.push(...r.records);
    if (out.length >= r.total || !r.records.length) {
      expect(out.length, `total of ${JSON.stringify(f)}`).toBe(r.total);
      return out;
    }
  }
}

/** A record as the API answers it, in the terms of the server's own filter rules (the oracle). */
export const toFilterable = (r: {
  workspace_uuid: string | null;
  eval_type: string;
  operation: string;
  modality: string | null;
  is_jailbreak: boolean;
  has_ground_truth: boolean;
}): FilterableRecord => ({
  workspaceUuid: r.workspace_uuid,
  evalType: r.eval_type,
  operation: r.operation,
  modality: r.modality ?? "",
  isJailbreak: r.is_jailbreak,
  hasGroundTruth: r.has_ground_truth,
});
