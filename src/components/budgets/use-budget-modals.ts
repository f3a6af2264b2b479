// The create and edit dialogs of budgets as one hook, shared by the Billing & Usage section and
// the workspace page: Refine's useModalForm on the budgets resource, the values turned into the
// API's body on the way out, and the alert banner refreshed after every change (a new amount or
// a deleted budget can resolve its alerts).
import { useModalForm } from "@refinedev/antd";
import { type HttpError, useInvalidate } from "@refinedev/core";
import { useCallback, useEffect, useState } from "react";
import type { Budget } from "../../../contract/budgets";
import { budgetAlerts, budgets as resource } from "../../resources/budgets";
import { type BudgetFormValues, budgetFormValues, newBudgetValues } from "./budget-form-values";

export type BudgetModal = ReturnType<typeof useModalForm<Budget, HttpError, BudgetFormValues>>;

export function useRefreshBudgetAlerts() {
  const invalidate = useInvalidate();
  return useCallback(() => invalidate({ resource: budgetAlerts.name, invalidates: ["list"] }), [invalidate]);
}

export function useBudgetModals() {
  const refreshAlerts = useRefreshBudgetAlerts();
  const common = {
    resource: resource.name,
    redirect: false,
    successNotification: false,
    // The dialog shows the API's message itself, next to the values it is about.
    errorNotification: false,
    onMutationSuccess: () => refreshAlerts(),
  } as const;
  const create = useModalForm<Budget, HttpError, BudgetFormValues>({ ...common, action: "create" });
  // The card already holds the budget: the dialog starts from it instead of reading it again.
  const edit = useModalForm<Budget, HttpError, BudgetFormValues>({
    ...common,
    action: "edit",
    queryOptions: { enabled: false },
  });

  const openCreate = (options: { workspaceUuid?: string; organizationTaken?: boolean } = {}) => {
    create.mutation.reset();
    create.show();
    create.form.setFieldsValue(newBudgetValues(options.workspaceUuid, options.organizationTaken));
  };
  // Refine clears the form when the edited id changes, after this render: the budget's values
  // are put in once the dialog is open on it.
  const [editing, setEditing] = useState<Budget | null>(null);
  const { form: editForm, id: editId } = edit;
  const editOpen = edit.modalProps.open === true;
  useEffect(() => {
    if (!editing || !editOpen || editId !== editing.budget_uuid) return;
    editForm.setFieldsValue(budgetFormValues(editing));
    setEditing(null);
  }, [editing, editOpen, editId, editForm]);

  const openEdit = (budget: Budget) => {
    edit.mutation.reset();
    setEditing(budget);
    edit.show(budget.budget_uuid);
  };
  return { create, edit, openCreate, openEdit };
}
