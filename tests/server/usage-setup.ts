import { expect } from "vitest";
import { billingCycles } from "../../server/db/schema";
import { setPriceRule } from "../../server/metering/pricing/prices";
import type { TestProduct } from "./harness";

// How the usage suites put usage in place: prices, events sent by the provider's operator and
// billing cycles.

/** Where usage events are sent. */
export const USAGE_EVENTS_URL = "/v1/usage/events";

/** A date before any test event: prices valid from here apply to all of them. */
export const PAST = new Date("2020-01-01T00:00:00Z");

/** What the ingestion call answers. */
export type IngestResult = {
  accepted: number;
  duplicates: number;
  rejected: { index: number; event_id: string | null; reason: string }[];
};

/** Generation at $0.01 ($0.0125 for safety evals) and scoring at $0.002. */
export async function setSamplePrices(db: TestProduct["database"]["db"]) {
  await setPriceRule(db, { operation: "generation", unitPrice: "0.01", validFrom: PAST });
  await setPriceRule(db, {
    operation: "generation",
    evalType: "safety",
    unitPrice: "0.0125",
    validFrom: PAST,
  });
  await setPriceRule(db, { operation: "scoring", unitPrice: "0.002", validFrom: PAST });
}

/**
 * Prices with six decimals (a base rule, eval generation, jailbreak scoring) for the suites that
 * reconcile totals to the micro-dollar: any rounding or float sum shows.
 */
export async function setSixDecimalPrices(db: TestProduct["database"]["db"]) {
  await setPriceRule(db, { unitPrice: "0.000123", validFrom: PAST });
  await setPriceRule(db, {
    operation: "generation",
    ruleMetric: "eval",
    unitPrice: "0.047311",
    validFrom: PAST,
  });
  await setPriceRule(db, {
    operation: "scoring",
    evalType: "jailbreak",
    unitPrice: "0.013579",
    validFrom: PAST,
  });
}

/**
 * `events` for `organizationUuid`, sent by the provider's operator (the backend API key, which
 * may send credits and charges); every one must be accepted.
 */
export async function sendAsOperator(p: TestProduct, organizationUuid: string, events: unknown[]) {
  const res = await p.api.app.inject({
    method: "POST",
    url: `${USAGE_EVENTS_URL}?organization_uuid=${organizationUuid}`,
    headers: { authorization: `Bearer ${p.identity.ctx.backendApiKey}` },
    payload: { events },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().rejected).toEqual([]);
  return res.json() as IngestResult;
}

/** A billing cycle of the organization (open when `endDate` is null); its uuid. */
export async function addCycle(
  p: TestProduct,
  organizationUuid: string,
  startDate: string,
  endDate: string | null,
) {
  const [row] = await p.database.db
    .insert(billingCycles)
    .values({ organizationUuid, startDate, endDate })
    .returning();
  if (!row) throw new Error("billing cycle not created");
  return row.billingCycleUuid;
}
