// One budget: whose it is, spent of amount this cycle, the bar with its thresholds, the thresholds
// crossed and whether it is a hard limit. Edit and Delete show for those the budgets resource
// allows (the buttons ask the access-control provider); Delete asks for confirmation first.
import { DeleteButton, EditButton } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Card, Flex, Space, Tag, Tooltip, Typography } from "antd";
import type { Budget } from "../../../contract/budgets";
import { budgets as resource } from "../../resources/budgets";
import { BudgetProgress } from "./budget-progress";
import { budgetOwner, budgetStatus, formatPercent, spentOfAmount } from "./budget-text";
import { useRefreshBudgetAlerts } from "./use-budget-modals";

type Props = {
  budget: Budget;
  onEdit: (budget: Budget) => void;
  /** The card's heading; the owner's name unless given (the workspace page says "Monthly Budget"). */
  title?: string;
};

export function BudgetCard({ budget, onEdit, title }: Props) {
  const owner = budgetOwner(budget);
  // Edit and Delete act on this budget, as icon-only buttons in the card's corner.
  const recordButton = {
    resource: resource.name,
    recordItemId: budget.budget_uuid,
    type: "text",
    hideText: true,
  } as const;
  const status = budgetStatus(budget);
  const refreshAlerts = useRefreshBudgetAlerts();
  return (
    <Card
      size="small"
      data-testid={`budget-${budget.budget_uuid}`}
      title={
        // One line: a long workspace name is cut short (its full name in the tooltip), the tag stays.
        <Flex align="center" gap={8} style={{ minWidth: 0 }}>
          <Typography.Text strong ellipsis={{ tooltip: title ?? owner }} data-testid="budget-owner">
            {title ?? owner}
          </Typography.Text>
          {budget.hard_limit ? (
            <Tooltip title="Work-starting API calls are refused once spend reaches the amount">
              <Tag color="red" style={{ marginInlineEnd: 0, flex: "none" }}>
                Hard limit
              </Tag>
            </Tooltip>
          ) : null}
        </Flex>
      }
      extra={
        <Space size={0}>
          <EditButton {...recordButton} aria-label={`Edit ${owner} budget`} onClick={() => onEdit(budget)} />
          <DeleteButton
            {...recordButton}
            aria-label={`Delete ${owner} budget`}
            confirmTitle={`Delete the ${owner} budget? Its alerts stop and any hard limit is lifted.`}
            confirmOkText="Delete"
            confirmCancelText="Cancel"
            successNotification={false}
            onSuccess={() => refreshAlerts()}
            errorNotification={(error) => ({
              type: "error",
              key: "budget-failure",
              description: "The budget could not be deleted.",
              message: (error as HttpError | undefined)?.message ?? "Please try again.",
            })}
          />
        </Space>
      }
      style={{ height: "100%" }}
    >
      <Flex justify="space-between" align="baseline" wrap gap={8} style={{ marginBottom: 8 }}>
        <Typography.Text
          strong
          style={{ fontSize: 18, fontVariantNumeric: "tabular-nums" }}
          data-testid="budget-spent"
        >
          {spentOfAmount(budget)}
        </Typography.Text>
        <Typography.Text
          type={status === "over" ? "danger" : status === "warning" ? "warning" : "secondary"}
          style={{ fontVariantNumeric: "tabular-nums" }}
        >
          {formatPercent(budget.percent_used)} used
        </Typography.Text>
      </Flex>
      <BudgetProgress
        percentUsed={budget.percent_used}
        thresholds={budget.thresholds}
        triggered={budget.triggered_thresholds}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="budget-triggered">
        {budget.triggered_thresholds.length > 0
          ? `Alerts sent this cycle: ${budget.triggered_thresholds.map((t) => `${t}%`).join(", ")}`
          : `Alerts at ${budget.thresholds.map((t) => `${t}%`).join(", ")}`}
      </Typography.Text>
    </Card>
  );
}
