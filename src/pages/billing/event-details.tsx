// The 'Usage Event Details' hover card of a records row: every field of the event, with the price
// rule (uuid and version) that priced it and the arithmetic of its cost.
import { useLink } from "@refinedev/core";
import { Descriptions, Flex, Typography } from "antd";
import { capitalizeWords, evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney, formatUnitPrice, formatUsdExact, toMicros } from "../../../contract/money";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { operationLabel, orDash } from "../../lib/billing/labels";
import { evalRunPath } from "../../lib/eval-runs";

const yesNo = (value: boolean) => (value ? "Yes" : "No");
const mono = (value: string | null) =>
  value ? (
    <Typography.Text code copyable={{ text: value }} style={{ fontSize: 12 }}>
      {value}
    </Typography.Text>
  ) : (
    "-"
  );

/** The run's id, linking to its Eval Runs page (its cost, cost per operation and events). */
function RunLink({ run }: { run: string | null }) {
  const Link = useLink();
  if (!run) return "-";
  return (
    <Flex gap={8} align="center" wrap>
      {mono(run)}
      <Link to={evalRunPath(run)} aria-label={`Open eval run ${run}`}>
        Open run
      </Link>
    </Flex>
  );
}

/** The rule that priced the event: its uuid (copyable) and version; "-" for an adjustment without one. */
function PriceRule({ record }: { record: UsageRecord }) {
  if (!record.price_rule_uuid) return "-";
  return (
    <Flex gap={8} align="center" wrap>
      {mono(record.price_rule_uuid)}
      {record.price_rule_version !== null && <span>Version {record.price_rule_version}</span>}
    </Flex>
  );
}

/**
 * How the cost came about: quantity × unit price = cost, the cost exact (sub-cent digits kept), so
 * the product reads right ("3 × $0.0125 = $0.0375"). A price adjustment is sent with its own cost,
 * which the product does not make: then both are shown, and why they differ.
 */
export function costArithmetic(record: Pick<UsageRecord, "quantity" | "unit_price" | "cost">): string {
  const quantity = record.quantity ?? 1;
  const product = BigInt(quantity) * toMicros(record.unit_price);
  const arithmetic = `${quantity} × ${formatUnitPrice(record.unit_price)} = ${formatUnitPrice(formatUsdExact(product))}`;
  if (product === toMicros(record.cost)) return arithmetic;
  return `${arithmetic}; the cost, ${formatUnitPrice(record.cost)}, was sent with the event (a price adjustment)`;
}

export function EventDetails({ record }: { record: UsageRecord }) {
  return (
    <Descriptions
      size="small"
      column={1}
      colon={false}
      style={{ width: 420 }}
      styles={{ label: { width: 150 } }}
      items={[
        { key: "date", label: "Date", children: formatUtcDateTime(record.date) },
        { key: "eval", label: "Eval", children: orDash(record.name) },
        { key: "operation", label: "Operation", children: operationLabel(record.operation) },
        { key: "type", label: "Eval Type", children: evalTypeLabel(record.eval_type) },
        { key: "workspace", label: "Workspace", children: orDash(record.workspace_name) },
        { key: "by", label: "Created By", children: orDash(record.created_by) },
        { key: "quantity", label: "Quantity", children: String(record.quantity ?? 1) },
        { key: "unit", label: "Unit Price", children: formatUnitPrice(record.unit_price) },
        { key: "cost", label: "Cost", children: formatMoney(record.cost) },
        { key: "arithmetic", label: "Quantity × Unit Price", children: costArithmetic(record) },
        { key: "rule", label: "Price Rule", children: <PriceRule record={record} /> },
        { key: "note", label: "Price Adjustment Note", children: orDash(record.notes) },
        { key: "modality", label: "Modality", children: capitalizeWords(record.modality) || "-" },
        { key: "metric", label: "Metric", children: capitalizeWords(record.rule_metric) || "-" },
        { key: "jailbreak", label: "Jailbreak", children: yesNo(record.is_jailbreak) },
        { key: "gt", label: "Ground Truth", children: yesNo(record.has_ground_truth) },
        { key: "evalId", label: "Eval ID", children: mono(record.eval_uuid) },
        { key: "runId", label: "Run ID", children: <RunLink run={record.eval_run_uuid} /> },
      ]}
    />
  );
}
