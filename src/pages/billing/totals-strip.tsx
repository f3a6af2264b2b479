// Total Cost (with one line per workspace group when there are several, and the usage awaiting
// pricing, which no total includes yet), Paid and Balance.
import { PartitionOutlined } from "@ant-design/icons";
import { Button, Card, Col, Flex, Row, Skeleton, Tooltip, Typography } from "antd";
import type { ReactNode } from "react";
import { memo } from "react";
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import { formatBalance, formatMoney, toMicros } from "../../../contract/money";
import type { AwaitingPricing } from "../../../contract/usage-schemas";
import { balanceCaption, balanceMicros, groupBreakdown, totalCostMicros } from "../../lib/billing/totals";

export const CREDIT_GREEN = "#49aa19";

// Heights of an amount's line, the "Explain this charge" link and a caption line (12 px text).
const VALUE_HEIGHT = 36;
const EXPLAIN_HEIGHT = 28;
const CAPTION_HEIGHT = 20;

function Stat({
  label,
  value,
  testId,
  children,
}: {
  label: string;
  value: ReactNode;
  testId: string;
  children?: ReactNode;
}) {
  return (
    <Card size="small" style={{ height: "100%" }} styles={{ body: { padding: "16px 20px" } }}>
      <section aria-label={label} data-testid={testId}>
        <Typography.Text type="secondary" style={{ fontSize: 13 }}>
          {label}
        </Typography.Text>
        <div
          style={{
            fontSize: 28,
            fontWeight: 600,
            lineHeight: 1.3,
            minHeight: VALUE_HEIGHT,
            fontVariantNumeric: "tabular-nums",
          }}
        >
          {value}
        </div>
        {children}
      </section>
    </Card>
  );
}

/** The state of the awaiting-pricing count: its answer, or loading, or failed. */
export type AwaitingState = { awaiting: AwaitingPricing | undefined; loading: boolean; failed: boolean };

const AWAITING_HELP =
  "Usage events your eval services sent that no price covers yet. They are kept, and priced and " +
  "added to your bill once your provider sets their price; until then they are in no total.";

/**
 * One caption-sized line, the same height in every state (so nothing moves when the count comes):
 * never a zero while the count is loading.
 */
export function AwaitingLine({ state }: { state: AwaitingState }) {
  const { awaiting, loading, failed } = state;
  let text: string;
  let warn = false;
  if (awaiting) {
    const n = awaiting.events;
    warn = n > 0;
    text = n
      ? `${n.toLocaleString("en-US")} ${n === 1 ? "event" : "events"} awaiting pricing (not in this total)`
      : "No usage awaiting pricing";
  } else if (loading) text = "Checking for usage awaiting pricing…";
  else text = failed ? "Usage awaiting pricing could not be checked" : "Checking for usage awaiting pricing…";
  return (
    <Tooltip title={AWAITING_HELP}>
      <Typography.Text
        type={warn ? "warning" : "secondary"}
        style={{ fontSize: 12, display: "block" }}
        data-testid="awaiting-pricing"
        aria-busy={!awaiting && loading ? true : undefined}
      >
        {text}
      </Typography.Text>
    </Tooltip>
  );
}

function TotalsStripView({
  cycle,
  loading,
  awaiting,
  onExplain,
}: {
  cycle: BillingCycle | undefined;
  loading: boolean;
  awaiting: AwaitingState;
  /** Opens "Explain this charge" (the drill-down of the Total Cost). */
  onExplain?: () => void;
}) {
  if (loading && !cycle) {
    // The cards as they will be, with a bar where each amount goes and the room of the lines under
    // it, so that nothing below moves when the cycle comes (a workspace group's line excepted).
    const amount = <Skeleton.Input active size="small" style={{ height: 28, width: 120 }} />;
    return (
      <Row gutter={[16, 16]} style={{ marginBottom: 16 }} aria-busy>
        <Col xs={24} md={8}>
          <Stat label="Total Cost" testId="total-cost-loading" value={amount}>
            <AwaitingLine state={awaiting} />
            {onExplain ? <div style={{ height: EXPLAIN_HEIGHT }} /> : null}
          </Stat>
        </Col>
        <Col xs={24} md={8}>
          <Stat label="Paid" testId="paid-loading" value={amount} />
        </Col>
        <Col xs={24} md={8}>
          <Stat label="Balance" testId="balance-loading" value={amount}>
            <div style={{ height: CAPTION_HEIGHT }} />
          </Stat>
        </Col>
      </Row>
    );
  }
  if (!cycle) return null;
  const groups = groupBreakdown(cycle);
  const balance = formatBalance(balanceMicros(cycle));
  return (
    <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
      <Col xs={24} md={8}>
        <Stat label="Total Cost" testId="total-cost" value={formatMoney(totalCostMicros(cycle))}>
          <AwaitingLine state={awaiting} />
          {groups.length ? (
            <Flex vertical gap={2} style={{ marginTop: 8 }} data-testid="total-cost-groups">
              {groups.map((g) => (
                <Flex key={g.label} justify="space-between" gap={12}>
                  <Typography.Text type="secondary">{g.label}</Typography.Text>
                  <Typography.Text style={{ fontVariantNumeric: "tabular-nums" }}>
                    {formatMoney(g.cost)}
                  </Typography.Text>
                </Flex>
              ))}
            </Flex>
          ) : null}
          {onExplain ? (
            <Button
              type="link"
              size="small"
              icon={<PartitionOutlined />}
              style={{ padding: 0, marginTop: 4 }}
              onClick={onExplain}
            >
              Explain this charge
            </Button>
          ) : null}
        </Stat>
      </Col>
      <Col xs={24} md={8}>
        <Stat label="Paid" testId="paid" value={formatMoney(toMicros(cycle.paid_amount_usd))} />
      </Col>
      <Col xs={24} md={8}>
        <Stat
          label="Balance"
          testId="balance"
          value={
            <span style={balance.credit ? { color: CREDIT_GREEN } : undefined} data-credit={balance.credit}>
              {balance.text}
            </span>
          }
        >
          <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="balance-caption">
            {balanceCaption(cycle)}
          </Typography.Text>
        </Stat>
      </Col>
    </Row>
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const TotalsStrip = memo(TotalsStripView);
