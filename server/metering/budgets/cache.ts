/**
 * The organization's budgets as ingestion needs them, cached per API process beside its price rules
 * and cycles: the entry hangs on ingestion's cached configuration (ingest-config.ts), which is
 * replaced when the organization's metering_config_versions counter moves — and a trigger on
 * budgets (migration "budgets") moves it on every budget change, whoever makes it. So a batch of an
 * organization without budgets costs no query at all. The list only answers whether there are
 * budgets: the evaluation reads them again under its lock (budgets-eval.ts).
 */
import type { Db } from "../../platform/database";
import type { IngestConfig } from "../ingestion/ingest-config";
import { type BudgetRow, loadBudgets } from "./store";

const byConfig = new WeakMap<IngestConfig, Promise<readonly BudgetRow[]>>();

export function cachedBudgets(db: Db, config: IngestConfig, organizationUuid: string) {
  let budgets = byConfig.get(config);
  if (!budgets) {
    budgets = loadBudgets(db, organizationUuid);
    byConfig.set(config, budgets);
    // A failed read is not remembered: the next batch asks again.
    budgets.catch(() => byConfig.delete(config));
  }
  return budgets;
}
