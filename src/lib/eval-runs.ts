// What the Eval Runs pages show and link: a run's page address (the billing cycle its figures come
// from rides along, so the page shows the same cycle as where it was opened), and exact money.
import { formatUnitPrice } from "../../contract/money";

/** The run page of `run` (an id as the events carry it: any text), for the cycle when given. */
export function evalRunPath(run: string, billingCycleUuid?: string | null): string {
  const path = `/eval-runs/${encodeURIComponent(run)}`;
  return billingCycleUuid ? `${path}?billing_cycle_uuid=${encodeURIComponent(billingCycleUuid)}` : path;
}

/** A cost with every digit the API gives ("$1.3145"), at least two decimals: sums reconcile exactly. */
export const exactMoney = formatUnitPrice;
