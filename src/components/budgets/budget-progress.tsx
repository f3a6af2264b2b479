// A budget's spend as a bar with a tick at every alert threshold. The bar ends at 100% of the
// amount, or at the highest threshold beyond it; triggered thresholds' ticks are drawn darker.
import { Progress, Typography, theme } from "antd";
import { barGeometry, budgetStatus, formatPercent } from "./budget-text";

type Props = {
  percentUsed: number;
  thresholds: readonly number[];
  triggered: readonly number[];
};

export function BudgetProgress({ percentUsed, thresholds, triggered }: Props) {
  const { token } = theme.useToken();
  const { fill, marks } = barGeometry(percentUsed, thresholds);
  const status = budgetStatus({ percent_used: percentUsed, triggered_thresholds: triggered });
  const color =
    status === "over" ? token.colorError : status === "warning" ? token.colorWarning : token.colorPrimary;

  return (
    <div style={{ position: "relative", paddingBottom: 18 }}>
      <Progress
        percent={fill}
        showInfo={false}
        strokeColor={color}
        size={["100%", 10]}
        aria-label="Budget used"
        aria-valuetext={`${formatPercent(percentUsed)} of the budget used`}
      />
      {marks.map(({ threshold, at }) => {
        const crossed = triggered.includes(threshold);
        // A label at either end of the bar lines up with the end instead of sticking out of it.
        const shift = at >= 95 ? "-100%" : at <= 5 ? "0" : "-50%";
        return (
          <div
            key={threshold}
            data-testid={`threshold-mark-${threshold}`}
            data-triggered={crossed}
            title={`Alert at ${threshold}%`}
          >
            <div
              style={{
                position: "absolute",
                left: `${at}%`,
                top: 0,
                width: 2,
                height: 18,
                transform: "translateX(-1px)",
                background: crossed ? token.colorText : token.colorTextQuaternary,
              }}
            />
            <Typography.Text
              type={crossed ? undefined : "secondary"}
              style={{
                position: "absolute",
                left: `${at}%`,
                top: 18,
                transform: `translateX(${shift})`,
                fontSize: 11,
                lineHeight: "14px",
                whiteSpace: "nowrap",
              }}
            >
              {threshold}%
            </Typography.Text>
          </div>
        );
      })}
    </div>
  );
}
