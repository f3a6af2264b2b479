// Eval Type, Operation and Modality multi-selects, the Ground Truth and Jailbreak choices, and
// "Clear all (n)" while any of them is set. Options are the values present in the cycle's data.
import { ClearOutlined } from "@ant-design/icons";
import { Button, Flex, Select, Typography } from "antd";
import { memo, useId } from "react";
import { evalTypeLabel } from "../../../contract/eval-types";
import type { UsageSummary } from "../../../contract/usage-schemas";
import {
  type BillingFilters,
  clearAllLabel,
  clearFilterBar,
  GROUND_TRUTH_OPTIONS,
  JAILBREAK_OPTIONS,
} from "../../lib/billing/filters";
import { optionLabel } from "../../lib/billing/labels";
import { filterSummary, optionsWithSelected, toggleValue } from "../../lib/billing/selection";
import { MultiSelect } from "./multi-select";

type Props = {
  filters: BillingFilters;
  options: UsageSummary["filter_options"] | undefined;
  onChange: (change: Partial<BillingFilters>) => void;
  onReplace: (filters: BillingFilters) => void;
};

type SetKey = "evalTypes" | "operations" | "modalities";

function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  value: T | null;
  options: readonly { value: "all" | T; label: string }[];
  onChange: (value: T | null) => void;
  testId: string;
}) {
  const id = useId();
  return (
    <Flex vertical gap={4} data-testid={testId} style={{ flex: "1 1 150px", maxWidth: 240 }}>
      <Typography.Text type="secondary" style={{ fontSize: 12 }} id={id}>
        {label}
      </Typography.Text>
      <Select
        aria-labelledby={id}
        value={value ?? "all"}
        style={{ width: "100%" }}
        options={options.map((o) => ({ value: o.value, label: o.label }))}
        onChange={(next) => onChange(next === "all" ? null : (next as T))}
      />
    </Flex>
  );
}

function FilterBarView({ filters, options, onChange, onReplace }: Props) {
  const clearLabel = clearAllLabel(filters);
  const set = (key: SetKey, label: string, present: readonly string[], labelOf: (v: string) => string) => {
    const values = optionsWithSelected(present, filters[key]);
    return (
      <MultiSelect
        key={key}
        testId={`filter-${key}`}
        label={label}
        allLabel="All"
        summary={filterSummary(filters[key], labelOf)}
        selected={filters[key]}
        options={values.map((v) => ({ value: v, label: labelOf(v), text: labelOf(v) }))}
        onToggle={(v) => onChange({ [key]: toggleValue(filters[key], v, values) })}
        onClear={() => onChange({ [key]: [] })}
      />
    );
  };
  return (
    <Flex wrap gap={16} align="flex-end" role="toolbar" aria-label="Filters" data-testid="filter-bar">
      {set("evalTypes", "Eval Type", options?.eval_types ?? [], evalTypeLabel)}
      {set("operations", "Operation", options?.operations ?? [], optionLabel)}
      {set("modalities", "Modality", options?.modalities ?? [], optionLabel)}
      <Choice
        testId="filter-ground-truth"
        label="Ground Truth"
        value={filters.groundTruth}
        options={GROUND_TRUTH_OPTIONS}
        onChange={(groundTruth) => onChange({ groundTruth })}
      />
      <Choice
        testId="filter-jailbreak"
        label="Jailbreak"
        value={filters.jailbreak}
        options={JAILBREAK_OPTIONS}
        onChange={(jailbreak) => onChange({ jailbreak })}
      />
      {clearLabel ? (
        <Button type="link" icon={<ClearOutlined />} onClick={() => onReplace(clearFilterBar(filters))}>
          {clearLabel}
        </Button>
      ) : null}
    </Flex>
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const FilterBar = memo(FilterBarView);
