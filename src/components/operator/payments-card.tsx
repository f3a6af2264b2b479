// An organization's payments on its operator page, newest first: amount (a negative one is a
// refund), the billing cycle it was recorded on, its note; "Record payment" on a chosen cycle (the
// open one by default), its amount filled in with what is due on that cycle. A payment changes its
// cycle's paid amount, so the cycles are read again.
import { useSelect } from "@refinedev/antd";
import { CanAccess, type HttpError, useInvalidate } from "@refinedev/core";
import { Button, Flex, Form, Input, Select, Tag } from "antd";
import { formatMoney, toMicros } from "../../../contract/money";
import { formatUtcDateTime } from "../../lib/billing/dates";
import {
  cyclePeriod,
  type OperatorBillingCycle,
  type Payment,
  paymentBody,
  SIGNED_USD_PATTERN,
} from "../../lib/operator";
import { operatorBillingCycles, operatorPayments as resource } from "../../resources/operator-billing";
import { formatColumn } from "../table/columns";
import { ListCard } from "../table/list-actions";
import { ListTable } from "../table/list-table";
import { OperatorFormModal, usdRules, useOperatorForm } from "./operator-form-modal";
import { useOrganizationTable } from "./use-organization-table";

type Props = { organizationId: string };

export function PaymentsCard({ organizationId }: Props) {
  const meta = { organizationId };
  const invalidate = useInvalidate();
  const table = useOrganizationTable<Payment>({ resource: resource.name, meta, pageSize: 10 });

  const modal = useOperatorForm<Payment, ReturnType<typeof paymentBody>>({
    resource: resource.name,
    action: "create",
    meta,
    notice: {
      key: "payment-recorded",
      done: (payment) =>
        payment ? `Payment of ${formatMoney(payment.amount_usd)} recorded` : "Payment recorded",
    },
    onMutationSuccess: () => invalidate({ resource: operatorBillingCycles.name, invalidates: ["list"] }),
  });

  // The cycles, for the payments' cycle column and the form's choice (newest first, open one first).
  const { selectProps, query: cyclesQuery } = useSelect<OperatorBillingCycle, HttpError>({
    resource: operatorBillingCycles.name,
    meta,
    optionLabel: (c) =>
      `${cyclePeriod(c)}${c.status === "open" ? " (open)" : ""} · ${formatMoney(c.amount_due_usd)} due`,
    optionValue: "billing_cycle_uuid",
    pagination: { mode: "off" },
    errorNotification: false,
  });
  const cycles = cyclesQuery.data?.data ?? [];
  const periods = new Map(cycles.map((c) => [c.billing_cycle_uuid, cyclePeriod(c)]));
  const openCycle = cycles.find((c) => c.status === "open");
  // What is due on a cycle, as the amount field takes it; empty when nothing is.
  const dueOn = (uuid: string | undefined) => {
    const due = cycles.find((c) => c.billing_cycle_uuid === uuid)?.amount_due_usd;
    return due && toMicros(due) > 0n ? due : undefined;
  };
  // The payment goes to the open cycle, else the latest (the list is newest first).
  const target = openCycle ?? cycles[0];

  return (
    <ListCard
      title="Payments"
      query={table.tableQuery}
      actions={
        <CanAccess resource={resource.name} action="create">
          <Button type="primary" onClick={() => modal.show()} disabled={cyclesQuery.isLoading}>
            Record payment
          </Button>
        </CanAccess>
      }
    >
      <ListTable<Payment>
        list={table}
        failed="The payments could not be loaded."
        empty="No payments recorded"
        scroll={{ x: 720 }}
        pager={{ single: true }}
        columns={[
          formatColumn<Payment>("Recorded", "created_at", formatUtcDateTime, { width: 200 }),
          {
            title: "Amount",
            dataIndex: "amount_usd",
            key: "amount_usd",
            width: 160,
            align: "right",
            render: (amount: string) => (
              <Flex gap={6} justify="flex-end" align="center">
                {toMicros(amount) < 0n ? <Tag color="warning">Refund</Tag> : null}
                {formatMoney(amount)}
              </Flex>
            ),
          },
          {
            title: "Billing cycle",
            dataIndex: "billing_cycle_uuid",
            key: "billing_cycle_uuid",
            width: 240,
            render: (uuid: string) => periods.get(uuid) ?? (cyclesQuery.isLoading ? "…" : uuid),
          },
          { ...formatColumn<Payment>("Note", "note", (note) => note), ellipsis: true },
        ]}
      />
      <OperatorFormModal
        modal={modal}
        name="payment"
        title="Record a payment"
        okText="Record payment"
        toBody={paymentBody}
        initialValues={{
          billing_cycle_uuid: openCycle?.billing_cycle_uuid,
          amount_usd: dueOn(target?.billing_cycle_uuid),
        }}
      >
        <Form.Item
          label="Amount (USD)"
          name="amount_usd"
          htmlFor="payment-amount"
          rules={usdRules(
            "Enter the amount paid in USD.",
            SIGNED_USD_PATTERN,
            'Enter a USD amount such as "1250.00" (negative for a refund, at most 6 decimals).',
          )}
          extra="Filled in with what is due on the cycle chosen below; negative for a refund."
        >
          <Input id="payment-amount" prefix="$" inputMode="decimal" placeholder="1250.00" autoFocus />
        </Form.Item>
        <Form.Item
          label="Billing cycle"
          name="billing_cycle_uuid"
          htmlFor="payment-cycle"
          extra="Empty: the open cycle (else the latest)."
        >
          <Select
            id="payment-cycle"
            options={selectProps.options}
            loading={selectProps.loading}
            allowClear
            placeholder="The open cycle"
            // Another cycle: its amount due (none, cleared: the open one's, else the latest's).
            onChange={(uuid: string | undefined) =>
              modal.formProps.form?.setFieldValue("amount_usd", dueOn(uuid ?? target?.billing_cycle_uuid))
            }
          />
        </Form.Item>
        <Form.Item label="Note" name="note" htmlFor="payment-note">
          <Input.TextArea
            id="payment-note"
            maxLength={1000}
            rows={2}
            placeholder="Optional, e.g. a wire reference"
          />
        </Form.Item>
      </OperatorFormModal>
    </ListCard>
  );
}
