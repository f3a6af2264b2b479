// "Preview against the last 90 days": the dialog's values replayed over the organization's real
// usage (POST /v1/budgets/simulate) before they are saved — when each alert would have gone out
// and what the hard limit would have blocked. The answer is for the values it was asked with: once
// they change, it gives way to the button again rather than describe a budget no longer on screen.
import { LineChartOutlined } from "@ant-design/icons";
import { type HttpError, useCustomMutation } from "@refinedev/core";
import { Alert, Button, Flex, Form, type FormInstance, Typography } from "antd";
import { useState } from "react";
import { DEFAULT_SIMULATION_DAYS } from "../../../contract/budget-limits";
import type { BudgetSimulation } from "../../../contract/budget-simulation";
import { type BudgetFormValues, budgetRequest } from "./budget-form-values";
import { BudgetPreviewChart } from "./budget-preview-chart";
import { alertsSentence, blocksSentence } from "./budget-preview-text";

type Props = {
  form: FormInstance<BudgetFormValues>;
  fixedWorkspace?: { workspace_uuid: string } | undefined;
};

export function BudgetPreview({ form, fixedWorkspace }: Props) {
  const { mutate, mutation } = useCustomMutation<BudgetSimulation>();
  const [answer, setAnswer] = useState<{ key: string; sim: BudgetSimulation } | null>(null);
  const watched = Form.useWatch((values) => values, { form, preserve: true });

  const request = (values: BudgetFormValues) =>
    budgetRequest(
      fixedWorkspace
        ? { ...values, scope: "workspace", workspace_uuid: fixedWorkspace.workspace_uuid }
        : values,
    );
  const keyOf = (values: BudgetFormValues | undefined) => {
    if (!values?.amount || !values.thresholds) return "";
    return JSON.stringify(request(values));
  };
  const current = answer && answer.key === keyOf(watched) ? answer.sim : null;

  const preview = async () => {
    try {
      await form.validateFields(["amount", "thresholds", "workspace_uuid"]);
    } catch {
      return; // the fields say what is wrong
    }
    const values = form.getFieldsValue(true) as BudgetFormValues;
    const key = keyOf(values);
    mutate(
      {
        url: "/v1/budgets/simulate",
        method: "post",
        values: { ...request(values), days: DEFAULT_SIMULATION_DAYS },
        successNotification: false,
        errorNotification: false,
      },
      { onSuccess: ({ data }) => setAnswer({ key, sim: data }) },
    );
  };

  const blocks = current ? blocksSentence(current) : null;
  return (
    <Flex vertical gap={8} style={{ marginBottom: 16 }} data-testid="budget-preview">
      {current ? (
        <>
          <Typography.Text strong>
            What this budget would have done in the last {current.days.length} days
          </Typography.Text>
          <BudgetPreviewChart sim={current} />
          <Typography.Text>{alertsSentence(current)}</Typography.Text>
          {blocks ? (
            <Typography.Text type={current.blocks.length ? "danger" : undefined}>{blocks}</Typography.Text>
          ) : null}
        </>
      ) : (
        <div>
          <Button icon={<LineChartOutlined />} onClick={preview} loading={mutation.isPending}>
            Preview against the last {DEFAULT_SIMULATION_DAYS} days
          </Button>
        </div>
      )}
      {mutation.error && !current ? (
        <Alert
          type="error"
          showIcon
          role="alert"
          message="The preview could not be computed."
          description={(mutation.error as HttpError).message}
        />
      ) : null}
    </Flex>
  );
}
