// A workspace page's budget: its card when it has one (edit, delete), else an invitation to set
// one. Only those the budgets resource lets list budgets (administrators) see it at all; it reads
// the same list as the Billing & Usage section, so both show the same figures.
import { PlusOutlined } from "@ant-design/icons";
import { CreateButton } from "@refinedev/antd";
import { CanAccess } from "@refinedev/core";
import { Card, Empty, Skeleton, Typography } from "antd";
import { budgets as resource } from "../../resources/budgets";
import { LoadError } from "../feedback/load-error";
import { BudgetCard } from "./budget-card";
import { BudgetFormModal } from "./budget-form-modal";
import { useBudgets } from "./budgets-section";
import { useBudgetModals } from "./use-budget-modals";

type Props = { workspace: { workspace_uuid: string; name: string } };

function WorkspaceBudget({ workspace }: Props) {
  const { budgets, query } = useBudgets();
  const modals = useBudgetModals();
  const budget = budgets.find(
    (b) => b.scope === "workspace" && b.workspace_uuid === workspace.workspace_uuid,
  );

  let body: React.ReactNode;
  if (query.isLoading) {
    body = (
      <Card size="small" title="Monthly Budget" data-testid="workspace-budget-loading">
        <Skeleton active title={false} paragraph={{ rows: 3 }} />
      </Card>
    );
  } else if (query.isError) {
    body = <LoadError message="The workspace's budget could not be loaded." query={query} />;
  } else if (budget) {
    body = <BudgetCard budget={budget} title="Monthly Budget" onEdit={modals.openEdit} />;
  } else {
    body = (
      <Card size="small" title="Monthly Budget">
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={
            <Typography.Text type="secondary">
              No budget for this workspace. Set one to be alerted as its spend grows.
            </Typography.Text>
          }
        >
          <CreateButton
            resource={resource.name}
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => modals.openCreate({ workspaceUuid: workspace.workspace_uuid })}
          >
            Set Budget
          </CreateButton>
        </Empty>
      </Card>
    );
  }

  return (
    <>
      {body}
      <CanAccess resource={resource.name} action="create">
        <BudgetFormModal
          action="create"
          modal={modals.create}
          existing={budgets}
          fixedWorkspace={workspace}
        />
      </CanAccess>
      <CanAccess resource={resource.name} action="edit">
        <BudgetFormModal action="edit" modal={modals.edit} existing={budgets} fixedWorkspace={workspace} />
      </CanAccess>
    </>
  );
}

export function WorkspaceBudgetCard({ workspace }: Props) {
  return (
    <CanAccess resource={resource.name} action="list">
      <WorkspaceBudget workspace={workspace} />
    </CanAccess>
  );
}
