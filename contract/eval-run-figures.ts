/**
 * What an eval run bought, as plain values and arithmetic (no zod: the console imports them): the
 * limits of reported outcomes, the judge's operations, and the derived figures (pass rate, cost per
 * passed case, the generation/scoring split), computed on integer micro-dollars (bigint), never
 * floats, so the server, its webhook and the console agree to the last digit.
 */
import { formatUsdExact, parseUsd } from "./money";

/** The largest count of one outcome: a billion test cases. */
export const MAX_OUTCOME_COUNT = 1_000_000_000;
/** How many runs one comparison takes. */
export const MIN_COMPARED_RUNS = 2;
export const MAX_COMPARED_RUNS = 10;
/** Digits after the point of a pass rate ("0.833333"). */
export const PASS_RATE_DECIMALS = 6;

/**
 * The operations whose cost is the judge's (cost_by_role.scoring), compared without regard to
 * case; every other operation is generation. "scoring" is the operation the spec names.
 */
export const SCORING_OPERATIONS = ["scoring", "judge", "judging"] as const;

/** The list's sort keys these figures add (beside started_at, cost and events). */
export const OUTCOME_SORT_FIELDS = ["pass_rate", "cost_per_passed_case"] as const;
export type OutcomeSortField = (typeof OUTCOME_SORT_FIELDS)[number];

export const OUTCOME_NAMES = ["passed", "failed", "errored"] as const;
export type Outcomes = { passed: number; failed: number; errored: number };

/** A run's figures (the schema: contract/eval-run-outcomes.ts OutcomeFiguresSchema). */
export type OutcomeFigures = {
  outcomes: Outcomes | null;
  pass_rate: string | null;
  cost_per_passed_case: string | null;
  cost_by_role: { generation: string; scoring: string };
};

/** a ÷ b (b > 0) rounded to the nearest integer, halves away from zero. */
function divideHalfUp(a: bigint, b: bigint): bigint {
  const sign = a < 0n ? -1n : 1n;
  const abs = a < 0n ? -a : a;
  return sign * ((2n * abs + b) / (2n * b));
}

/** passed ÷ all with PASS_RATE_DECIMALS decimals, rounded half up; null when all is 0. */
export function passRate(o: Outcomes | null): string | null {
  if (!o) return null;
  const all = BigInt(o.passed) + BigInt(o.failed) + BigInt(o.errored);
  if (all === 0n) return null;
  const scale = 10n ** BigInt(PASS_RATE_DECIMALS);
  const scaled = divideHalfUp(BigInt(o.passed) * scale, all);
  const digits = scaled.toString().padStart(PASS_RATE_DECIMALS + 1, "0");
  return `${digits.slice(0, -PASS_RATE_DECIMALS)}.${digits.slice(-PASS_RATE_DECIMALS)}`;
}

/** cost ÷ passed in micro-dollars, halves away from zero; null when nothing passed. */
export function costPerPassedCaseMicros(costMicros: bigint, o: Outcomes | null): bigint | null {
  if (!o || o.passed === 0) return null;
  return divideHalfUp(costMicros, BigInt(o.passed));
}

/** A run's figures from its cost, the judge's part of it and its outcomes. */
export function outcomeFigures(
  costMicros: bigint,
  scoringMicros: bigint,
  o: Outcomes | null,
): OutcomeFigures {
  const perPassed = costPerPassedCaseMicros(costMicros, o);
  return {
    outcomes: o,
    pass_rate: passRate(o),
    cost_per_passed_case: perPassed === null ? null : formatUsdExact(perPassed),
    cost_by_role: {
      generation: formatUsdExact(costMicros - scoringMicros),
      scoring: formatUsdExact(scoringMicros),
    },
  };
}

/** A pass rate as an integer count of its last decimal place ("0.5" → 500000). */
const rateUnits = (rate: string) => parseUsd(rate) / 10n ** BigInt(6 - PASS_RATE_DECIMALS);

/** A signed pass rate from units of its last decimal place. */
function formatRate(units: bigint): string {
  const abs = units < 0n ? -units : units;
  const digits = abs.toString().padStart(PASS_RATE_DECIMALS + 1, "0");
  return `${units < 0n ? "-" : ""}${digits.slice(0, -PASS_RATE_DECIMALS)}.${digits.slice(-PASS_RATE_DECIMALS)}`;
}

/** The figures a comparison sets against the first run's. */
type Compared = {
  cost: string;
  events: number;
  pass_rate: string | null;
  cost_per_passed_case: string | null;
};

/**
 * A run's difference from the first run of a comparison: this run's figure minus the first's, as
 * they are shown (so the difference of two pass rates is exact to their decimals); null where
 * either has no such figure.
 */
export function differenceFrom(first: Compared, run: Compared) {
  const money = (a: string | null, b: string | null) =>
    a === null || b === null ? null : formatUsdExact(parseUsd(b) - parseUsd(a));
  return {
    cost: formatUsdExact(parseUsd(run.cost) - parseUsd(first.cost)),
    events: run.events - first.events,
    pass_rate:
      first.pass_rate === null || run.pass_rate === null
        ? null
        : formatRate(rateUnits(run.pass_rate) - rateUnits(first.pass_rate)),
    cost_per_passed_case: money(first.cost_per_passed_case, run.cost_per_passed_case),
  };
}
