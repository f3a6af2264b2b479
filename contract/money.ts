/**
 * Money as integer micro-dollars (bigint): 1 USD = 1,000,000 micros. Amounts travel as exact
 * decimal strings ("12.34", "0.0125"); they are read and added as micros, never as floats, and
 * shown as "$" with exactly two decimals. The server and the console both use this module.
 */

const MICROS_PER_USD = 1_000_000n;
const SCALE = 6;
const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

export class MoneyError extends Error {}

/** "12.34" → 12340000n, "-0.50" → -500000n, 0.0125 → 12500n. More than 6 decimals is refused. */
export function parseUsd(value: string | number): bigint {
  if (typeof value === "number" && !Number.isFinite(value)) throw new MoneyError("must be a finite amount");
  const text = typeof value === "number" ? String(value) : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) throw new MoneyError(`"${text}" is not a decimal amount like 12.34`);
  const [, sign, whole = "0", frac = ""] = m;
  if (frac.length > SCALE && /[1-9]/.test(frac.slice(SCALE)))
    throw new MoneyError(`"${text}" has more than ${SCALE} decimals`);
  const micros = BigInt(whole) * MICROS_PER_USD + BigInt(frac.slice(0, SCALE).padEnd(SCALE, "0"));
  return sign === "-" ? -micros : micros;
}

/** Like parseUsd, but returns null instead of throwing. */
export function tryParseUsd(value: string | number): bigint | null {
  try {
    return parseUsd(value);
  } catch {
    return null;
  }
}

/**
 * An amount received for display: a decimal string as parseUsd reads it, a number (a chart's
 * drawn value) rounded to micros; missing or unreadable is 0, so one odd value cannot blank a page.
 */
export function toMicros(value: string | number | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === "number") return Number.isFinite(value) ? parseUsd(value.toFixed(SCALE)) : 0n;
  return tryParseUsd(value) ?? 0n;
}

/** Adds micro-dollar amounts (bigint or the integer strings databases return for bigint sums). */
export function sumMicros(values: Iterable<bigint | string | number | null | undefined>): bigint {
  let total = 0n;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (typeof v === "number" && !Number.isSafeInteger(v)) throw new MoneyError("micros must be integers");
    total += BigInt(v);
  }
  return total;
}

/** The absolute amount's digits with `decimals` places, rounded half away from zero. */
function absoluteDigits(micros: bigint, decimals: number): { whole: string; frac: string; zero: boolean } {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > SCALE)
    throw new MoneyError(`decimals must be 0..${SCALE}`);
  const unit = 10n ** BigInt(SCALE - decimals);
  const rounded = ((micros < 0n ? -micros : micros) + unit / 2n) / unit;
  const digits = rounded.toString().padStart(decimals + 1, "0");
  return {
    whole: digits.slice(0, digits.length - decimals),
    frac: digits.slice(digits.length - decimals),
    zero: rounded === 0n,
  };
}

/**
 * Micro-dollars as a decimal string with exactly `decimals` places (default 2), rounding half away
 * from zero: 12340000n → "12.34", -500000n → "-0.50", 12500n → "0.01".
 */
export function formatUsd(micros: bigint, decimals = 2): string {
  const { whole, frac, zero } = absoluteDigits(micros, decimals);
  return `${micros < 0n && !zero ? "-" : ""}${whole}${decimals ? `.${frac}` : ""}`;
}

/** The exact amount, at least 2 decimals and no trailing zeros beyond: 12500n → "0.0125". */
export function formatUsdExact(micros: bigint): string {
  const [whole, frac = ""] = formatUsd(micros, SCALE).split(".");
  return `${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

const grouped = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** "$1,234.50", "-$0.05", "$0.00": a dollar sign, thousands separators and exactly two decimals. */
export function formatMoney(value: string | number | bigint | null | undefined): string {
  const micros = typeof value === "bigint" ? value : toMicros(value);
  const { whole, frac, zero } = absoluteDigits(micros, 2);
  return `${micros < 0n && !zero ? "-" : ""}$${grouped(whole)}.${frac}`;
}

/**
 * A unit price keeps its sub-cent digits ("$0.0125") so a price is never shown rounded away;
 * at least two decimals ("$0.50").
 */
export function formatUnitPrice(value: string | number | null | undefined): string {
  const micros = toMicros(value);
  const { whole, frac, zero } = absoluteDigits(micros, SCALE);
  return `${micros < 0n && !zero ? "-" : ""}$${grouped(whole)}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

/** Balance: a negative amount (credit) reads "($12.34)" and is marked as credit; zero is "$0.00". */
export function formatBalance(micros: bigint): { text: string; credit: boolean } {
  const { whole, frac, zero } = absoluteDigits(micros, 2);
  const text = `$${grouped(whole)}.${frac}`;
  return micros < 0n && !zero ? { text: `(${text})`, credit: true } : { text, credit: false };
}

/** Micro-dollars as a float, for charts and percentages only (never for sums shown as money). */
export const microsToNumber = (micros: bigint) => Number(micros) / 1_000_000;

/** Share of a total as a whole percent in 0..100; 0 when the total is not positive. */
export function percentOf(part: bigint, total: bigint): number {
  if (total <= 0n || part <= 0n) return 0;
  const pct = Number((part * 10_000n) / total) / 100;
  return Math.min(100, Math.round(pct));
}
