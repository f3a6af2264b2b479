// The Usage Summary card: a tile per operation (count and cost), By Workspace (top 6 and No
// Workspace) and By Eval Type (top 5), each row with its share of the total as a bar.
import { Card, Col, Empty, Flex, Progress, Row, Skeleton, Typography } from "antd";
import { memo } from "react";
import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney, percentOf, toMicros } from "../../../contract/money";
import type { UsageSummary as Summary } from "../../../contract/usage-schemas";
import { ADJUSTMENT_COLOR, evalTypeColor } from "../../lib/billing/colors";
import { countWithUnit, eventsText, operationTileLabel } from "../../lib/billing/labels";
import { usageOnly } from "../../lib/billing/totals";

const NO_DATA = "No usage data available";
const WORKSPACE_BAR = "#94a3b8";
const CREDIT_GREEN = "#49aa19";

function Tile({
  label,
  count,
  cost,
  credit,
}: {
  label: string;
  count: string;
  cost: string;
  /** The credits and adjustments line: dashed, green when it is a credit. */
  credit?: boolean;
}) {
  return (
    <section
      aria-label={label}
      data-testid={credit === undefined ? "usage-tile" : "adjustments-tile"}
      style={{
        border: credit === undefined ? "1px solid rgba(255,255,255,0.08)" : `1px dashed ${ADJUSTMENT_COLOR}`,
        borderRadius: 10,
        padding: "14px 16px",
        height: "100%",
        background: "rgba(255,255,255,0.02)",
      }}
    >
      <Typography.Text type="secondary" style={{ fontSize: 13 }}>
        {label}
      </Typography.Text>
      <div
        style={{
          fontSize: 22,
          fontWeight: 600,
          fontVariantNumeric: "tabular-nums",
          color: credit ? CREDIT_GREEN : undefined,
        }}
      >
        {cost}
      </div>
      <Typography.Text type="secondary" style={{ fontVariantNumeric: "tabular-nums" }}>
        {count}
      </Typography.Text>
    </section>
  );
}

type Share = { key: string; label: string; cost: string; detail: string; percent: number; color: string };

function Breakdown({ title, rows }: { title: string; rows: Share[] }) {
  return (
    <section aria-label={title} data-testid={`breakdown-${title.replace(/\s+/g, "-").toLowerCase()}`}>
      <Typography.Title level={5} style={{ marginTop: 0 }}>
        {title}
      </Typography.Title>
      {rows.length === 0 ? (
        <Typography.Text type="secondary">{NO_DATA}</Typography.Text>
      ) : (
        <Flex vertical gap={10}>
          {rows.map((r) => (
            <div key={r.key} data-testid="breakdown-row" data-color={r.color}>
              <Flex justify="space-between" gap={12}>
                <Typography.Text ellipsis style={{ maxWidth: "60%" }}>
                  {r.label}
                </Typography.Text>
                <Typography.Text style={{ fontVariantNumeric: "tabular-nums" }}>
                  {r.cost} <Typography.Text type="secondary">· {r.percent}%</Typography.Text>
                </Typography.Text>
              </Flex>
              <Progress
                percent={r.percent}
                showInfo={false}
                size="small"
                strokeColor={r.color}
                aria-label={`${r.label}: ${r.percent}% of cost`}
                style={{ margin: 0 }}
              />
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {r.detail}
              </Typography.Text>
            </div>
          ))}
        </Flex>
      )}
    </section>
  );
}

// Heights of a loaded tile and breakdown row, so the placeholder takes the room the answer will.
const TILE_HEIGHT = 107;
const BREAKDOWN_ROW_HEIGHT = 76;
const PLACEHOLDER_ROWS = 5;

/** The summary's layout (a row of tiles, the two breakdowns) without numbers, while loading. */
function SummarySkeleton() {
  return (
    <div aria-busy data-testid="summary-loading">
      <Row gutter={[12, 12]} style={{ marginBottom: 24 }}>
        {[0, 1, 2, 3].map((i) => (
          <Col key={i} xs={24} sm={12} lg={6}>
            <Skeleton.Node active style={{ width: "100%", height: TILE_HEIGHT }} />
          </Col>
        ))}
      </Row>
      <Row gutter={[32, 24]}>
        {["By Workspace", "By Eval Type"].map((title) => (
          <Col key={title} xs={24} lg={12}>
            <Typography.Title level={5} style={{ marginTop: 0 }}>
              {title}
            </Typography.Title>
            <div style={{ height: PLACEHOLDER_ROWS * BREAKDOWN_ROW_HEIGHT }}>
              <Skeleton active title={false} paragraph={{ rows: PLACEHOLDER_ROWS * 2 }} />
            </div>
          </Col>
        ))}
      </Row>
    </div>
  );
}

function UsageSummaryView({ summary, loading }: { summary: Summary | undefined; loading: boolean }) {
  if (!summary) {
    return (
      <Card title="Usage Summary" style={{ marginBottom: 16 }}>
        {loading ? <SummarySkeleton /> : <Empty description={NO_DATA} />}
      </Card>
    );
  }
  const total = toMicros(summary.totals.cost);
  const empty = total === 0n && summary.totals.events === 0;
  // The operation tiles show usage alone, and credits and other price adjustments have their own
  // line; the breakdowns keep each workspace's and eval type's net cost (what it adds to the bill).
  const adjustments = summary.adjustments?.events ? summary.adjustments : undefined;
  const usageTotal = usageOnly({ ...summary.totals, adjustments: summary.adjustments }).cost;
  const share = (cost: string) => percentOf(toMicros(cost), total);
  const workspaces: Share[] = summary.by_workspace.map((w) => ({
    key: w.workspace_uuid ?? "none",
    label: w.workspace_name,
    cost: formatMoney(w.cost),
    detail: eventsText(w.events),
    percent: share(w.cost),
    color: WORKSPACE_BAR,
  }));
  const evalTypes: Share[] = summary.by_eval_type.map((t) => ({
    key: t.eval_type,
    label: evalTypeLabel(t.eval_type),
    cost: formatMoney(t.cost),
    detail: eventsText(t.events),
    percent: share(t.cost),
    color: evalTypeColor(t.eval_type),
  }));
  // Credits and charges on lines of their own (a server without the split gives the net only).
  const adjustmentLines =
    summary.credits || summary.charges
      ? [
          { label: "Credits", noun: "credit", sums: summary.credits },
          { label: "Other Adjustments", noun: "adjustment", sums: summary.charges },
        ].flatMap((l) => (l.sums?.events ? [{ ...l, sums: l.sums }] : []))
      : adjustments
        ? [{ label: "Credits & Adjustments", noun: "adjustment", sums: adjustments }]
        : [];
  const operations = summary.by_operation.flatMap((op) => {
    const u = usageOnly(op);
    return u.events > 0 ? [{ op, u }] : [];
  });
  return (
    <Card
      title="Usage Summary"
      style={{ marginBottom: 16 }}
      extra={
        <Typography.Text type="secondary" data-testid="summary-total">
          Total {formatMoney(total)} · {eventsText(summary.totals.events)}
        </Typography.Text>
      }
    >
      {empty ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={NO_DATA} />
      ) : (
        <>
          <Row gutter={[12, 12]} style={{ marginBottom: 24 }}>
            {operations.length === 0 ? (
              <Col xs={24} sm={12} lg={6}>
                <Tile
                  label="Total Usage"
                  cost={formatMoney(usageTotal)}
                  count={eventsText(summary.totals.events - (adjustments?.events ?? 0))}
                />
              </Col>
            ) : (
              operations.map(({ op, u }) => (
                <Col key={`${op.operation}:${op.rule_metric}`} xs={24} sm={12} lg={6}>
                  <Tile
                    label={operationTileLabel(op.operation, op.rule_metric)}
                    cost={formatMoney(u.cost)}
                    count={countWithUnit(u.count, op.operation, op.rule_metric)}
                  />
                </Col>
              ))
            )}
            {adjustmentLines.map((line) => (
              <Col key={line.label} xs={24} sm={12} lg={6}>
                <Tile
                  label={line.label}
                  cost={formatMoney(line.sums.cost)}
                  count={`${line.sums.events.toLocaleString("en-US")} ${line.sums.events === 1 ? line.noun : `${line.noun}s`}`}
                  credit={toMicros(line.sums.cost) < 0n}
                />
              </Col>
            ))}
          </Row>
          <Row gutter={[32, 24]}>
            <Col xs={24} lg={12}>
              <Breakdown title="By Workspace" rows={workspaces} />
            </Col>
            <Col xs={24} lg={12}>
              <Breakdown title="By Eval Type" rows={evalTypes} />
            </Col>
          </Row>
        </>
      )}
    </Card>
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const UsageSummary = memo(UsageSummaryView);
