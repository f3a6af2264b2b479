/**
 * A budget replayed over daily spend, as the live evaluation (budgets-eval.ts) would have judged it
 * day by day: spend restarts at each billing cycle, a threshold is reached when
 * `spent × 100 ≥ threshold × amount` and fires at most once per cycle, and a hard limit refuses
 * new work while the cycle's spend is at or above the amount. Pure: the caller reads the days,
 * cycles and run starts (budget-simulate.ts).
 *
 * The unit is the UTC day (the rollups' grain): an alert is placed on the day spend reached it, and
 * a block starts at the end of that day — the first instant the replay is sure of — and ends at the
 * end of the day a credit brought spend back below the amount, at the cycle's end, or now.
 */
import { DAY_MS, dayStart, utcDay } from "../../../contract/utc-calendar";

export type ReplayCycle = { start: string; end: string | null };

export type ReplayInput = {
  /** First and last day shown, "YYYY-MM-DD", both included. */
  from: string;
  to: string;
  /** Stored cycles, start ascending; days outside them fall in calendar months. */
  cycles: readonly ReplayCycle[];
  /** The scope's spend per day, micro-dollars, from the start of `from`'s cycle through `to`. */
  daily: ReadonlyMap<string, bigint>;
  amount: bigint;
  thresholds: readonly number[];
  hardLimit: boolean;
  now: Date;
};

export type ReplayDay = { day: string; spend: bigint; cycleSpend: bigint; blocked: boolean };
export type ReplayAlert = { threshold: number; cycleStart: string; day: string; spent: bigint };
export type ReplayBlock = {
  cycleStart: string;
  reachedOn: string;
  from: Date;
  until: Date;
  spendAvoided: bigint;
  /** Still refusing work now (the cycle is open and spend is at or above the amount). */
  ongoing: boolean;
};
export type Replay = { days: ReplayDay[]; alerts: ReplayAlert[]; blocks: ReplayBlock[] };

const nextDay = (day: string) => utcDay(new Date(dayStart(day).getTime() + DAY_MS));

function monthOf(day: string): ReplayCycle {
  const d = dayStart(day);
  const start = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  const end = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  return { start: utcDay(start), end: utcDay(end) };
}

/** The cycle holding `day`: a stored one, else its calendar month clipped to the stored ones. */
export function cycleOf(cycles: readonly ReplayCycle[], day: string): ReplayCycle {
  let month = monthOf(day);
  for (const c of cycles) {
    if (c.start <= day && (c.end === null || day < c.end)) return c;
    // A stored cycle starting inside the month ends the month's stand-in cycle there (and one
    // ending inside it starts it there), so replayed cycles never overlap stored ones.
    if (c.start > day && month.end !== null && c.start < month.end) month = { ...month, end: c.start };
    if (c.end !== null && c.end <= day && c.end > month.start) month = { ...month, start: c.end };
  }
  return month;
}

/** The first day the replay must read so `from`'s cycle starts with its whole spend. */
export const scanStart = (cycles: readonly ReplayCycle[], from: string) => cycleOf(cycles, from).start;

export function replayBudget(input: ReplayInput): Replay {
  const { from, to, cycles, daily, amount, hardLimit, now } = input;
  const thresholds = [...input.thresholds].sort((a, b) => a - b);
  const windowStart = dayStart(from);
  const days: ReplayDay[] = [];
  const alerts: ReplayAlert[] = [];
  const blocks: ReplayBlock[] = [];

  let cycle: ReplayCycle | null = null;
  let cum = 0n;
  let fired = new Set<number>();
  let open: ReplayBlock | null = null;
  const close = (until: Date, ongoing = false) => {
    if (!open) return;
    const clipped = {
      ...open,
      from: new Date(Math.max(open.from.getTime(), windowStart.getTime())),
      until,
      ongoing,
    };
    // A block reached today starts "now" at the latest: kept while it lasts, though it has no length yet.
    if (clipped.until > clipped.from || ongoing) blocks.push(clipped);
    open = null;
  };

  for (let day = scanStart(cycles, from); day <= to; day = nextDay(day)) {
    const c = cycleOf(cycles, day);
    if (!cycle || c.start !== cycle.start) {
      close(dayStart(c.start));
      cycle = c;
      cum = 0n;
      fired = new Set();
    }
    const spend = daily.get(day) ?? 0n;
    cum += spend;
    const inWindow = day >= from;
    if (open && inWindow) open.spendAvoided += spend;
    for (const t of thresholds) {
      if (fired.has(t) || cum * 100n < BigInt(t) * amount) continue;
      fired.add(t);
      if (inWindow) alerts.push({ threshold: t, cycleStart: c.start, day, spent: cum });
    }
    const endOfDay = new Date(Math.min(dayStart(day).getTime() + DAY_MS, now.getTime()));
    if (hardLimit && !open && cum >= amount)
      open = {
        cycleStart: c.start,
        reachedOn: day,
        from: endOfDay,
        until: endOfDay,
        spendAvoided: 0n,
        ongoing: false,
      };
    else if (open && cum < amount) close(endOfDay);
    if (inWindow) days.push({ day, spend, cycleSpend: cum, blocked: open !== null });
  }
  const cycleEnd = cycle?.end ? dayStart(cycle.end) : null;
  if (cycleEnd && cycleEnd <= now) close(cycleEnd);
  else close(now, true);
  for (const b of blocks) if (b.spendAvoided < 0n) b.spendAvoided = 0n;
  return { days, alerts, blocks };
}
