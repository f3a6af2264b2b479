// "Open Reservations" beside the budgets: what each running eval run holds against the hard limits,
// who started it and until when, the largest first, so an administrator sees a run that holds the
// free budget without knowing the run, and can release it (after a confirmation). Administrators
// only, like the budgets; Release follows the resource's access declaration.
import { DeleteButton } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Card, Table, Typography } from "antd";
import { formatMoney, toMicros } from "../../../contract/money";
import type { OpenReservation } from "../../../contract/reservations";
import { formatAuditTime } from "../../lib/audit-log";
import { budgetReservations as resource } from "../../resources/budgets";
import { QueryTable } from "../feedback/query-table";
import { useLiveList } from "./use-live-list";

/** The empty state's height in the table's body (antd's small Empty in the default theme), in px. */
const EMPTY_HEIGHT = 134;

const runLabel = (r: OpenReservation) => r.eval_name ?? r.eval_run_uuid;

export function OpenReservations() {
  const { result, query } = useLiveList<OpenReservation>(resource.name);
  const rows = result.data ?? [];
  const total = result.total ?? rows.length;
  return (
    <Card
      size="small"
      title="Open Reservations"
      style={{ marginTop: 16 }}
      data-testid="open-reservations"
      extra={
        total > rows.length ? (
          <Typography.Text type="secondary">
            The {rows.length.toLocaleString("en-US")} largest of {total.toLocaleString("en-US")}
          </Typography.Text>
        ) : null
      }
    >
      <QueryTable<OpenReservation>
        query={query}
        failed="Open reservations could not be loaded."
        empty="No eval run holds a reservation."
        // Room for the empty state, the usual answer (a run holds money only while it runs under a
        // hard limit), so the section keeps its height when it comes.
        loadingHeight={EMPTY_HEIGHT}
        dataSource={rows}
        rowKey="eval_run_uuid"
        size="small"
        pagination={false}
        scroll={{ x: 720 }}
      >
        <Table.Column<OpenReservation>
          key="run"
          title="Eval Run"
          render={(_, r) => (
            <Typography.Text ellipsis={{ tooltip: r.eval_run_uuid }}>{runLabel(r)}</Typography.Text>
          )}
        />
        <Table.Column<OpenReservation>
          dataIndex="workspace_name"
          title="Workspace"
          render={(name: string | null, r) => name ?? r.workspace_uuid}
        />
        <Table.Column<OpenReservation> dataIndex="started_by" title="Started By" render={(v) => v ?? "-"} />
        <Table.Column<OpenReservation>
          dataIndex="held"
          title="Held"
          align="right"
          render={(held: string, r) => (
            <span
              title={`Estimate ${formatMoney(toMicros(r.estimate))}, used ${formatMoney(toMicros(r.used))}`}
            >
              {formatMoney(toMicros(held))}
            </span>
          )}
        />
        <Table.Column<OpenReservation>
          dataIndex="expires_at"
          title="Held Until"
          render={(iso: string) => formatAuditTime(iso)}
        />
        <Table.Column<OpenReservation>
          key="actions"
          title="Actions"
          align="right"
          render={(_, r) => (
            <DeleteButton
              size="small"
              resource={resource.name}
              recordItemId={r.eval_run_uuid}
              icon={null}
              aria-label={`Release the reservation of ${runLabel(r)}`}
              confirmTitle={`Release the ${formatMoney(toMicros(r.held))} held by ${runLabel(r)}?`}
              confirmOkText="Release"
              confirmCancelText="Cancel"
              successNotification={{
                type: "success",
                message: `The run is finished; usage it still sends is recorded.`,
                description: "Reservation released",
              }}
              errorNotification={(error) => ({
                type: "error",
                message:
                  (error as HttpError | undefined)?.message ?? "The reservation could not be released.",
                description: "Could not release the reservation",
              })}
            >
              Release
            </DeleteButton>
          )}
        />
      </QueryTable>
    </Card>
  );
}
