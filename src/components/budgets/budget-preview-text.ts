// What the budget dialog's preview says of a replay (POST /v1/budgets/simulate): the alerts it
// would have sent and what its hard limit would have blocked, in sentences; and the points of its
// chart. Pure, so the wording and the scale are tested apart from the dialog.
import type { BudgetSimulation } from "../../../contract/budget-simulation";
import { formatMoney, microsToNumber, toMicros } from "../../../contract/money";

const dayFormat = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
/** "Oct 3" for "2026-10-03" (a UTC day, as the replay counts them). */
export const shortDay = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`));

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** "3 days 4 h", "5 h", "under an hour". */
export function duration(hours: number): string {
  const whole = Math.floor(hours);
  if (whole < 1) return "under an hour";
  const days = Math.floor(whole / 24);
  const rest = whole % 24;
  if (!days) return `${rest} h`;
  return rest ? `${plural(days, "day")} ${rest} h` : plural(days, "day");
}

export function alertsSentence(sim: Pick<BudgetSimulation, "alerts" | "days">): string {
  const span = plural(sim.days.length, "day");
  if (!sim.alerts.length) return `No threshold would have been reached in the last ${span}.`;
  const list = sim.alerts.map((a) => `${a.threshold}% on ${shortDay(a.day)}`).join(", ");
  return `${plural(sim.alerts.length, "alert")} in the last ${span}: ${list}.`;
}

/** null without a hard limit: the preview then says nothing about blocking. */
export function blocksSentence(
  sim: Pick<BudgetSimulation, "hard_limit" | "blocks" | "runs_refused" | "spend_avoided">,
) {
  if (!sim.hard_limit) return null;
  if (!sim.blocks.length) return "The hard limit would never have blocked new work.";
  const hours = sim.blocks.reduce((n, b) => n + b.hours, 0);
  const now = sim.blocks.some((b) => b.ongoing) ? " (and would be blocking it now)" : "";
  return (
    `The hard limit would have blocked new work for ${duration(hours)} in ${plural(sim.blocks.length, "period")}` +
    `${now}: ${plural(sim.runs_refused, "run")} refused, up to ${formatMoney(sim.spend_avoided)} of spend avoided.`
  );
}

export type PreviewChart = {
  /** The cycle's spend at the end of each day, as x (0..1) and y (0..1, 1 at the top of the scale). */
  points: { x: number; y: number }[];
  /** Each threshold's line, as y, and its label. */
  lines: { y: number; label: string }[];
  /** Runs of blocked days, as x from and to (0..1). */
  blocked: { from: number; to: number }[];
  /** The scale's top, in dollars. */
  top: number;
};

/** The chart of a replay: spend against the thresholds, on a scale that shows the highest of both. */
export function previewChart(sim: Pick<BudgetSimulation, "days" | "thresholds" | "amount">): PreviewChart {
  const amount = microsToNumber(toMicros(sim.amount));
  const spends = sim.days.map((d) => microsToNumber(toMicros(d.cycle_spend)));
  const highestLine = Math.max(...sim.thresholds) / 100;
  const top = Math.max(...spends, amount * highestLine, 0) * 1.1 || 1;
  const n = sim.days.length;
  const x = (i: number) => (n <= 1 ? 0 : i / (n - 1));
  const blocked: PreviewChart["blocked"] = [];
  sim.days.forEach((d, i) => {
    if (!d.blocked) return;
    const last = blocked.at(-1);
    const from = n <= 1 ? 0 : i / n;
    const to = n <= 1 ? 1 : (i + 1) / n;
    if (last && Math.abs(last.to - from) < 1e-9) last.to = to;
    else blocked.push({ from, to });
  });
  return {
    points: spends.map((v, i) => ({ x: x(i), y: Math.max(0, v) / top })),
    lines: sim.thresholds.map((t) => ({ y: (amount * t) / 100 / top, label: `${t}%` })),
    blocked,
    top,
  };
}
