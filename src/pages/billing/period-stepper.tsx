// "Billing Period" with previous/next buttons. Until the cycles are in, the same row with its
// buttons disabled and no period, so that nothing below moves when the period comes.
import { LeftOutlined, RightOutlined } from "@ant-design/icons";
import { Button, Flex, Typography } from "antd";
import { memo } from "react";
import { periodLabel } from "../../lib/billing/dates";
import type { BillingState } from "./use-billing-state";

function PeriodStepperView({ state }: { state: BillingState }) {
  const { cycle, canStepBack, canStepForward, step } = state;
  return (
    <Flex vertical gap={4}>
      <Typography.Text type="secondary" style={{ fontSize: 12 }} id="billing-period-label">
        Billing Period
      </Typography.Text>
      <Flex align="center" gap={4} role="group" aria-labelledby="billing-period-label">
        <Button
          icon={<LeftOutlined />}
          aria-label="Previous billing period"
          disabled={!cycle || !canStepBack}
          onClick={() => step(-1)}
        />
        <Typography.Text
          strong
          data-testid="billing-period"
          aria-live="polite"
          aria-busy={cycle ? undefined : true}
          style={{ minWidth: 220, textAlign: "center", fontVariantNumeric: "tabular-nums" }}
        >
          {cycle ? periodLabel(cycle.billing_cycle_start_date, cycle.billing_cycle_end_date) : "\u00a0"}
        </Typography.Text>
        <Button
          icon={<RightOutlined />}
          aria-label="Next billing period"
          disabled={!cycle || !canStepForward}
          onClick={() => step(1)}
        />
      </Flex>
    </Flex>
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const PeriodStepper = memo(PeriodStepperView);
