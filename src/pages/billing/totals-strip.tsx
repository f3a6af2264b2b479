// Total Cost (with one line per workspace group when there are several), Paid and Balance.
import { Card, Col, Flex, Row, Skeleton, Typography } from "antd";
import type { ReactNode } from "react";
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import { formatBalance, formatMoney, toMicros } from "../../../contract/money";
import { balanceCaption, balanceMicros, groupBreakdown, totalCostMicros } from "../../lib/billing/totals";

export const CREDIT_GREEN = "#49aa19";

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
        <div style={{ fontSize: 28, fontWeight: 600, lineHeight: 1.3, fontVariantNumeric: "tabular-nums" }}>
          {value}
        </div>
        {children}
      </section>
    </Card>
  );
}

export function TotalsStrip({ cycle, loading }: { cycle: BillingCycle | undefined; loading: boolean }) {
  if (loading && !cycle) {
    return (
      <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
        {["Total Cost", "Paid", "Balance"].map((label) => (
          <Col key={label} xs={24} md={8}>
            <Card size="small">
              <Skeleton active paragraph={{ rows: 1 }} title={{ width: 80 }} />
            </Card>
          </Col>
        ))}
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
