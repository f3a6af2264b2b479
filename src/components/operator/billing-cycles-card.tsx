// An organization's billing cycles on its operator page, newest first, with the figures the
// customer's totals strip shows (total cost, balance beyond prepaid credit, paid) and what is due:
// open a new cycle (when none is open), close the open one (its end date, and whether the next
// one opens from it). Dates are UTC days; a cycle's end is exclusive.
import { CanAccess } from "@refinedev/core";
import { Button, Checkbox, DatePicker, Form, Tag, Typography } from "antd";
import { formatUtcDate } from "../../lib/billing/dates";
import {
  type CloseCycleAnswer,
  closeCycleBody,
  cyclePeriod,
  type OperatorBillingCycle,
  openCycleBody,
} from "../../lib/operator";
import { operatorBillingCycles as resource } from "../../resources/operator-billing";
import { moneyColumn } from "../table/columns";
import { ListCard } from "../table/list-actions";
import { ListTable } from "../table/list-table";
import { OperatorFormModal, useOperatorForm } from "./operator-form-modal";
import { useOrganizationTable } from "./use-organization-table";

type Props = { organizationId: string };

/** A cycle's start or end: a UTC day, the 1st of this month when left empty. */
function UtcDayField({ label, name, id }: { label: string; name: string; id: string }) {
  return (
    <Form.Item label={label} name={name} htmlFor={id} extra="Empty: the 1st of this month.">
      <DatePicker id={id} placeholder="1st of this month" style={{ width: "100%" }} />
    </Form.Item>
  );
}

export function BillingCyclesCard({ organizationId }: Props) {
  const meta = { organizationId };
  const table = useOrganizationTable<OperatorBillingCycle>({ resource: resource.name, meta });

  const cycles = table.tableQuery.data?.data ?? [];
  const current = cycles.find((c) => c.status === "open");

  const openModal = useOperatorForm<OperatorBillingCycle, ReturnType<typeof openCycleBody>>({
    resource: resource.name,
    action: "create",
    meta,
    notice: {
      key: "billing-cycle",
      done: (cycle) =>
        cycle ? `Billing cycle opened from ${formatUtcDate(cycle.start_date)}` : "Billing cycle opened",
    },
  });
  // Closing is the open cycle's update: POST …/billing-cycles/close. There is no single cycle to
  // read first, so the form loads nothing.
  const closeModal = useOperatorForm<CloseCycleAnswer, ReturnType<typeof closeCycleBody>>({
    resource: resource.name,
    action: "edit",
    meta,
    queryOptions: { enabled: false },
    notice: {
      key: "billing-cycle",
      done: (answer) =>
        answer
          ? `Billing cycle closed on ${formatUtcDate(answer.closed.end_date)}${
              answer.opened ? "; the next one is open" : ""
            }`
          : "Billing cycle closed",
    },
  });

  const loading = table.tableQuery.isLoading;
  return (
    <ListCard
      title="Billing cycles"
      query={table.tableQuery}
      actions={
        <>
          <CanAccess resource={resource.name} action="create">
            <Button disabled={loading || current !== undefined} onClick={() => openModal.show()}>
              Open a cycle
            </Button>
          </CanAccess>
          <CanAccess resource={resource.name} action="edit">
            <Button
              disabled={!current}
              onClick={() => current && closeModal.show(current.billing_cycle_uuid)}
            >
              Close the open cycle
            </Button>
          </CanAccess>
        </>
      }
    >
      <ListTable<OperatorBillingCycle>
        list={table}
        failed="The billing cycles could not be loaded."
        empty="No billing cycles yet"
        pager={false}
        scroll={{ x: 880 }}
        columns={[
          {
            title: "Period",
            key: "period",
            render: (_, c) => cyclePeriod(c),
          },
          {
            title: "Status",
            dataIndex: "status",
            key: "status",
            width: 110,
            render: (status: OperatorBillingCycle["status"]) =>
              status === "open" ? <Tag color="success">Open</Tag> : <Tag>Closed</Tag>,
          },
          moneyColumn<OperatorBillingCycle>("Total cost", "total_cost_usd"),
          moneyColumn<OperatorBillingCycle>("Balance", "balance_usd"),
          moneyColumn<OperatorBillingCycle>("Paid", "paid_usd"),
          moneyColumn<OperatorBillingCycle>("Amount due", "amount_due_usd"),
        ]}
      />
      <OperatorFormModal
        modal={openModal}
        name="open-cycle"
        title="Open a billing cycle"
        okText="Open cycle"
        toBody={openCycleBody}
        intro={
          <Typography.Paragraph type="secondary">
            The new cycle becomes the organization's current one; it cannot start before the last cycle ends.
          </Typography.Paragraph>
        }
      >
        <UtcDayField label="Start date (UTC)" name="start_date" id="open-cycle-start" />
      </OperatorFormModal>
      <OperatorFormModal
        modal={closeModal}
        name="close-cycle"
        title="Close the open billing cycle"
        okText="Close cycle"
        toBody={closeCycleBody}
        initialValues={{ open_next: true }}
        intro={
          current ? (
            <Typography.Paragraph type="secondary">
              The cycle from {formatUtcDate(current.start_date)} ends at midnight UTC of the end date (not
              included).
            </Typography.Paragraph>
          ) : null
        }
      >
        <UtcDayField label="End date (UTC)" name="end_date" id="close-cycle-end" />
        <Form.Item name="open_next" valuePropName="checked">
          <Checkbox>Open the next cycle from the end date</Checkbox>
        </Form.Item>
      </OperatorFormModal>
    </ListCard>
  );
}
