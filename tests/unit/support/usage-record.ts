// One usage record as the records list returns it, for the console tests that show records. The
// defaults are an unpriced safety generation in no workspace; each test overrides what it checks.
import type { UsageRecord } from "../../../contract/usage-schemas";

export function usageRecord(over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    usage_event_uuid: "00000000-0000-4000-8000-000000000001",
    date: "2026-11-13T08:00:00.000Z",
    name: "Jailbreak Sweep",
    operation: "generation",
    eval_type: "safety",
    created_by: "svc@acme.test",
    quantity: 3,
    unit_price: "0.0125",
    cost: "0.0375",
    eval_uuid: null,
    eval_run_uuid: null,
    workspace_uuid: null,
    workspace_name: "No Workspace",
    notes: null,
    adjustment: false,
    price_rule_uuid: null,
    price_rule_version: null,
    rule_metric: "eval",
    modality: null,
    is_jailbreak: false,
    has_ground_truth: false,
    ...over,
  };
}
