// "Budgets" on the Billing & Usage page: the organization's budget first, then each workspace's,
// with this cycle's spend against the amount, and below them what running eval runs hold. The section reads its own list (GET /v1/budgets),
// so the page's usage answers neither wait for it nor are held up by it. Administrators only,
// like the page; the buttons follow the budgets resource's access declaration.
import { PlusOutlined } from "@ant-design/icons";
import { CreateButton } from "@refinedev/antd";
import { CanAccess } from "@refinedev/core";
import { Card, Col, Empty, Row, Skeleton, Typography } from "antd";
import { memo } from "react";
import type { Budget } from "../../../contract/budgets";
import { budgets as resource } from "../../resources/budgets";
import { LoadError } from "../feedback/load-error";
import { BudgetCard } from "./budget-card";
import { BudgetFormModal } from "./budget-form-modal";
import { budgetOwner } from "./budget-text";
import { OpenReservations } from "./open-reservations";
import { useBudgetModals } from "./use-budget-modals";
import { useLiveList } from "./use-live-list";

/** The empty state's height (its image, text and button in antd's default theme), in px. */
const NO_BUDGETS_HEIGHT = 182;

export function useBudgets() {
  const { result, query } = useLiveList<Budget>(resource.name);
  return { budgets: result.data ?? [], query };
}

/** Organization first, then workspaces by name. */
function ordered(budgets: readonly Budget[]): Budget[] {
  return [...budgets].sort(
    (a, b) =>
      Number(b.scope === "organization") - Number(a.scope === "organization") ||
      budgetOwner(a).localeCompare(budgetOwner(b)),
  );
}

function BudgetsSectionView() {
  const { budgets, query } = useBudgets();
  const modals = useBudgetModals();

  const addButton = (label: string, type: "primary" | "default") => (
    <CreateButton
      resource={resource.name}
      type={type}
      icon={<PlusOutlined />}
      onClick={() =>
        modals.openCreate({ organizationTaken: budgets.some((b) => b.scope === "organization") })
      }
    >
      {label}
    </CreateButton>
  );

  let body: React.ReactNode;
  if (query.isLoading) {
    // Two placeholder cards (no "$0.00") in the room of the answer most organizations get, no
    // budgets yet (the empty state and its button): nothing below moves when it comes. A budget's
    // own card is within a few pixels of it.
    body = (
      <Row gutter={[16, 16]} data-testid="budgets-loading" style={{ minHeight: NO_BUDGETS_HEIGHT }}>
        {[0, 1].map((key) => (
          // One card where cards stack (the empty state is one block there too), two side by side.
          <Col key={key} xs={key === 0 ? 24 : 0} lg={12} xxl={8}>
            <Card size="small" title={<Skeleton.Input active size="small" />}>
              <Skeleton active title={false} paragraph={{ rows: 3 }} />
            </Card>
          </Col>
        ))}
      </Row>
    );
  } else if (query.isError) {
    body = <LoadError message="Budgets could not be loaded." query={query} />;
  } else if (budgets.length === 0) {
    body = (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={
          <Typography.Text type="secondary">
            No budgets yet. Set a monthly budget to get alerts before spend runs over, and optionally stop new
            work at the limit.
          </Typography.Text>
        }
      >
        {addButton("Set a Budget", "primary")}
      </Empty>
    );
  } else {
    body = (
      <Row gutter={[16, 16]}>
        {ordered(budgets).map((budget) => (
          <Col key={budget.budget_uuid} xs={24} lg={12} xxl={8}>
            <BudgetCard budget={budget} onEdit={modals.openEdit} />
          </Col>
        ))}
      </Row>
    );
  }

  return (
    <section id="budgets" aria-labelledby="budgets-heading" style={{ marginBottom: 16 }}>
      <Card
        title={
          <Typography.Title level={4} id="budgets-heading" style={{ margin: 0 }}>
            Budgets
          </Typography.Title>
        }
        extra={budgets.length > 0 ? addButton("Add Budget", "default") : null}
      >
        {body}
      </Card>
      <OpenReservations />
      <CanAccess resource={resource.name} action="create">
        <BudgetFormModal action="create" modal={modals.create} existing={budgets} />
      </CanAccess>
      <CanAccess resource={resource.name} action="edit">
        <BudgetFormModal action="edit" modal={modals.edit} existing={budgets} />
      </CanAccess>
    </section>
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const BudgetsSection = memo(BudgetsSectionView);
