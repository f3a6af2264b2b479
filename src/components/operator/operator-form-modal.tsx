// The operator area's form dialogs (set a price, open or close a cycle, record a payment, create an
// ingestion key), driven by Refine's useModalForm: the form's values become the call's body
// (`toBody`), and the API's refusal is shown in the dialog itself, which stays open with the
// input to correct. A new opening starts without the last refusal.
import { type UseModalFormProps, useModalForm } from "@refinedev/antd";
import type { BaseRecord, HttpError } from "@refinedev/core";
import { Alert, Form, type FormProps, type FormRule, type ModalProps } from "antd";
import { type ReactNode, useEffect } from "react";
import { FormModal } from "../form-modal";

/** What the dialog uses of Refine's useModalForm (whatever the record it answers). */
type ModalForm<TBody> = {
  modalProps: ModalProps;
  formProps: FormProps<TBody>;
  mutation: { isError: boolean; error: HttpError | null; reset: () => void };
};

type Props<TValues, TBody> = {
  modal: ModalForm<TBody>;
  /** The form's name: it prefixes its fields' ids, so several forms can share a page. */
  name: string;
  title: string;
  okText: string;
  toBody: (values: TValues) => TBody;
  initialValues?: Partial<TValues>;
  /** Shown above the fields. */
  intro?: ReactNode;
  children: ReactNode;
};

export function OperatorFormModal<TValues, TBody>({
  modal,
  name,
  title,
  okText,
  toBody,
  initialValues,
  intro,
  children,
}: Props<TValues, TBody>) {
  const { modalProps, formProps, mutation } = modal;
  const { reset } = mutation;
  const { form } = formProps;
  const open = modalProps.open === true;
  // Each opening starts from the form's current initial values (say, the cycle open now) and
  // without the last refusal. Its store outlives the dialog's content, and may hold values from
  // before those were known.
  useEffect(() => {
    if (!open) return;
    reset();
    form?.resetFields();
  }, [open, reset, form]);
  const refusal = mutation.isError ? mutation.error : null;
  return (
    <FormModal {...modalProps} width={560} title={title} okText={okText} destroyOnHidden>
      {intro}
      <Form
        {...formProps}
        name={name}
        layout="vertical"
        initialValues={initialValues}
        onFinish={async (values) => {
          try {
            await formProps.onFinish?.(toBody(values as unknown as TValues));
          } catch {
            // The refusal is shown below the fields; the dialog keeps the input.
          }
        }}
      >
        {children}
      </Form>
      {refusal ? (
        <Alert type="error" showIcon role="alert" message={refusal.message || "The request failed."} />
      ) : null}
    </FormModal>
  );
}

/** A USD amount field's checks: filled in, and in the form `pattern` allows (`example` says which). */
export function usdRules(required: string, pattern: RegExp, example: string): FormRule[] {
  return [
    { required: true, whitespace: true, message: required },
    { pattern, message: example },
  ];
}

type OperatorFormOptions<TData extends BaseRecord, TBody> = Omit<
  UseModalFormProps<TData, HttpError, TBody>,
  "redirect" | "errorNotification" | "successNotification"
> & {
  /** The success notification's key (a repeat replaces it) and its words for the answer. */
  notice: { key: string; done: (data: TData | undefined) => string };
};

/** Refine's modal form for an operator dialog: it stays on the page, and its refusal shows inside. */
export function useOperatorForm<TData extends BaseRecord, TBody>({
  notice,
  ...props
}: OperatorFormOptions<TData, TBody>) {
  return useModalForm<TData, HttpError, TBody>({
    ...props,
    redirect: false,
    errorNotification: false,
    successNotification: (res) => ({ type: "success", key: notice.key, message: notice.done(res?.data) }),
  });
}
