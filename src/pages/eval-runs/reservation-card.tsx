// A run's reservation (started with an estimate): what it reserved against the hard limits, what it
// used, what it still holds and until when, and any spend beyond its estimate — which is recorded
// as always and shown here rather than refused.
import { Card, Descriptions, Tag } from "antd";
import { formatMoney, toMicros } from "../../../contract/money";
import { RESERVATION_IDLE_MINUTES } from "../../../contract/reservation-limits";
import type { Reservation } from "../../../contract/reservations";
import { formatUtcDateTime } from "../../lib/billing/dates";

const STATE = {
  held: { color: "processing", label: "Held" },
  finished: { color: "default", label: "Released: run finished" },
  expired: { color: "warning", label: `Released: no usage for ${RESERVATION_IDLE_MINUTES} minutes` },
} as const;

export function ReservationCard({ reservation: r }: { reservation: Reservation }) {
  const beyond = toMicros(r.beyond_estimate) > 0n;
  return (
    <Card title="Reservation" data-testid="run-reservation">
      <Descriptions
        size="small"
        column={{ xs: 1, md: 2 }}
        items={[
          {
            key: "state",
            label: "State",
            children: <Tag color={STATE[r.state].color}>{STATE[r.state].label}</Tag>,
          },
          { key: "estimate", label: "Estimate", children: formatMoney(r.estimate) },
          { key: "used", label: "Used", children: formatMoney(r.used) },
          { key: "held", label: "Held", children: formatMoney(r.held) },
          {
            key: "until",
            label: r.state === "held" ? "Held Until" : "Finished",
            children:
              r.state === "held" ? formatUtcDateTime(r.expires_at) : formatUtcDateTime(r.finished_at) || "-",
          },
          {
            key: "beyond",
            label: "Beyond Estimate",
            children: beyond ? <Tag color="error">{formatMoney(r.beyond_estimate)}</Tag> : formatMoney(0n),
          },
        ]}
      />
    </Card>
  );
}
