// Completeness beside freshness: "Data as of" says when the figures were read; this says how far
// the eval services have vouched that everything was sent (GET /v1/usage/completeness), or plainly
// that none has — so a quiet day is not mistaken for zero spend — and how many events still
// arrived for periods reported complete. Shown once the page's figures are in, so nothing jumps.
import { type HttpError, useCustom } from "@refinedev/core";
import { Popover, Table, Tooltip, Typography } from "antd";
import type { UsageCompleteness } from "../../../contract/usage-completeness";
import { formatUtcDate, formatUtcDateTime, formatUtcTime } from "../../lib/billing/dates";
import { completenessText, lateEventsText } from "./completeness-text";

/** `dataAsOf`: the summary's read time; a new one (Refresh, a new period) reads completeness again. */
export function CompletenessNote({ dataAsOf }: { dataAsOf: string }) {
  const { query } = useCustom<UsageCompleteness, HttpError>({
    url: "/v1/usage/completeness",
    method: "get",
    errorNotification: false,
    queryOptions: { queryKey: ["usage-completeness", dataAsOf] },
  });
  const c = query.data?.data;
  if (!c || typeof c.senders !== "number") return null;
  const late = lateEventsText(c);
  return (
    <Typography.Text type="secondary" data-testid="completeness">
      <Tooltip
        title={
          c.complete_through
            ? `The eval services sending usage have reported everything up to this time as sent (${c.senders} reporting).`
            : "No eval service has reported how far its usage is complete: recent usage may still be arriving."
        }
      >
        <span>{completenessText(c, (iso) => `${formatUtcDate(iso)}, ${formatUtcTime(iso)}`)}</span>
      </Tooltip>
      {late ? (
        <>
          {" · "}
          <Popover
            trigger="click"
            title="Events that arrived after their period was reported complete"
            content={<LateEventsList events={c.recent_late_events} />}
          >
            <Typography.Link data-testid="late-events">{late}</Typography.Link>
          </Popover>
        </>
      ) : null}
    </Typography.Text>
  );
}

/** The latest late events (the answer lists up to 20): they are in the figures, this says which. */
function LateEventsList({ events }: { events: UsageCompleteness["recent_late_events"] }) {
  return (
    <Table
      size="small"
      rowKey="event_id"
      pagination={false}
      style={{ maxWidth: 560 }}
      dataSource={events}
      data-testid="late-events-list"
      columns={[
        {
          title: "Event ID",
          dataIndex: "event_id",
          key: "id",
          render: (v: string) => (
            <Typography.Text code copyable style={{ wordBreak: "break-all" }}>
              {v}
            </Typography.Text>
          ),
        },
        {
          title: "Occurred",
          dataIndex: "occurred_at",
          key: "at",
          render: (v: string) => formatUtcDateTime(v),
        },
        {
          title: "Received",
          dataIndex: "received_at",
          key: "in",
          render: (v: string) => formatUtcDateTime(v),
        },
      ]}
    />
  );
}
