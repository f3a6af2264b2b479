// The budget dialog: whose budget (the organization or a workspace, fixed once created), the
// monthly amount in USD, the alert thresholds as a list of percents (50/80/100 to start with) and
// the hard-limit switch. The rules are the API's (budget-form-values.ts); what the API still
// refuses (a second budget for the same workspace, say) is shown in the dialog in its own words.
import { useSelect } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Alert, Form, Input, Radio, Select, Switch, Typography } from "antd";
import type { Budget } from "../../../contract/budgets";
import type { WorkspaceRecord } from "../../lib/workspaces";
import { workspaces } from "../../resources/workspaces";
import { FormModal } from "../form-modal";
import { amountProblem, type BudgetFormValues, budgetRequest, thresholdsProblem } from "./budget-form-values";
import { BudgetPreview } from "./budget-preview";
import type { BudgetModal } from "./use-budget-modals";

type Props = {
  action: "create" | "edit";
  modal: BudgetModal;
  /** Budgets that exist: a workspace that has one is not offered again. */
  existing: readonly Budget[];
  /** The workspace page's dialog is about its workspace only. */
  fixedWorkspace?: { workspace_uuid: string; name: string };
};

/** An antd rule from one of the problem functions: their sentence is the field's message. */
function validator<T>(problem: (value: T | undefined) => string | null) {
  return async (_: unknown, value: T | undefined) => {
    const text = problem(value);
    if (text) throw new Error(text);
  };
}

export function BudgetFormModal(props: Props) {
  const { modalProps, formLoading } = props.modal;
  const creating = props.action === "create";
  // The form and its hooks (the workspace choices, the watched scope) are the dialog's content,
  // which mounts when the dialog first opens: the page that holds the closed dialog runs none of them.
  return (
    <FormModal
      {...modalProps}
      width={520}
      title={creating ? "Set Budget" : "Edit Budget"}
      okText={creating ? "Save Budget" : "Update Budget"}
      okButtonProps={{ ...modalProps.okButtonProps, loading: formLoading }}
      destroyOnHidden={false}
    >
      <BudgetForm {...props} />
    </FormModal>
  );
}

function BudgetForm({ action, modal, existing, fixedWorkspace }: Props) {
  const { modalProps, formProps, form, mutation } = modal;
  const scope = Form.useWatch("scope", form) as BudgetFormValues["scope"] | undefined;
  const creating = action === "create";

  const { selectProps } = useSelect<WorkspaceRecord, HttpError>({
    resource: workspaces.name,
    optionLabel: "name",
    optionValue: "workspace_uuid",
    pagination: { mode: "off" },
    queryOptions: { enabled: creating && !fixedWorkspace && modalProps.open === true },
  });
  const taken = new Set(existing.map((budget) => budget.workspace_uuid ?? "organization"));
  const workspaceOptions = (selectProps.options ?? []).map((option) => ({
    ...option,
    disabled: creating && taken.has(String(option.value)),
  }));

  const submit = async (values: BudgetFormValues) => {
    // Fields without an input on screen (the scope on a workspace's page) are in the store only.
    const all = { ...(form.getFieldsValue(true) as BudgetFormValues), ...values };
    const body = budgetRequest(
      fixedWorkspace ? { ...all, scope: "workspace", workspace_uuid: fixedWorkspace.workspace_uuid } : all,
    );
    const { amount, thresholds, hard_limit } = body;
    try {
      // An existing budget keeps its owner; only what it allows and when it warns change.
      await formProps.onFinish?.((creating ? body : { amount, thresholds, hard_limit }) as never);
    } catch {
      // The dialog stays open with the API's message shown above its buttons.
    }
  };

  return (
    <Form {...formProps} layout="vertical" requiredMark={false} onFinish={submit}>
      {fixedWorkspace ? (
        <Form.Item label="Workspace">
          <Typography.Text strong>{fixedWorkspace.name}</Typography.Text>
        </Form.Item>
      ) : (
        <Form.Item label="Applies to" name="scope">
          <Radio.Group
            disabled={!creating}
            optionType="button"
            options={[
              {
                value: "organization",
                label: "Organization",
                disabled: creating && taken.has("organization"),
              },
              { value: "workspace", label: "One workspace" },
            ]}
          />
        </Form.Item>
      )}
      {!fixedWorkspace && scope === "workspace" ? (
        <Form.Item
          label="Workspace"
          name="workspace_uuid"
          htmlFor="budget-workspace"
          rules={[{ required: true, message: "Choose the workspace" }]}
        >
          <Select
            {...selectProps}
            id="budget-workspace"
            disabled={!creating}
            options={workspaceOptions}
            placeholder="Choose a workspace"
            showSearch
            optionFilterProp="label"
            notFoundContent="No workspaces"
          />
        </Form.Item>
      ) : null}
      <Form.Item
        label="Monthly budget (USD)"
        name="amount"
        htmlFor={`budget-${action}-amount`}
        rules={[{ validator: validator<string>(amountProblem) }]}
        extra="Spend allowed per billing cycle, credits included."
      >
        <Input id={`budget-${action}-amount`} prefix="$" inputMode="decimal" placeholder="100.00" />
      </Form.Item>
      <Form.Item
        label="Alert thresholds (% of the budget)"
        name="thresholds"
        htmlFor={`budget-${action}-thresholds`}
        rules={[{ validator: validator<readonly string[]>(thresholdsProblem) }]}
        extra="Administrators get an email, a console banner and a webhook when spend crosses each one."
      >
        <Select
          id={`budget-${action}-thresholds`}
          mode="tags"
          tokenSeparators={[",", " "]}
          notFoundContent={null}
          placeholder="Type a percent and press Enter, e.g. 80"
        />
      </Form.Item>
      <Form.Item
        label="Hard limit"
        name="hard_limit"
        valuePropName="checked"
        htmlFor={`budget-${action}-hard-limit`}
        extra="When on, API calls that start new work in this scope are refused once spend reaches the budget. Usage already under way is still recorded."
      >
        <Switch id={`budget-${action}-hard-limit`} />
      </Form.Item>
      {modalProps.open ? <BudgetPreview form={form} fixedWorkspace={fixedWorkspace} /> : null}
      {mutation.error ? (
        <Alert
          type="error"
          showIcon
          role="alert"
          message={creating ? "The budget could not be saved." : "The budget could not be updated."}
          description={mutation.error.message}
        />
      ) : null}
    </Form>
  );
}
