// Money on the billing page: amounts arrive as exact decimal strings (or numbers) and are added as
// integer micro-dollars, never as floats; they are shown as "$" with exactly two decimals.

const SCALE = 6;
const MICROS = 1_000_000n;
const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?$/;

/** "12.34" → 12340000n; a number is read through its decimal text; anything unreadable is 0. */
export function toMicros(value: string | number | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === "number" && !Number.isFinite(value)) return 0n;
  const text = typeof value === "number" ? value.toFixed(SCALE) : value.trim();
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return 0n;
  const whole = BigInt(m[2] || "0");
  const frac = (m[3] ?? "").slice(0, SCALE).padEnd(SCALE, "0");
  const micros = whole * MICROS + BigInt(frac);
  return m[1] === "-" ? -micros : micros;
}

export function sumMicros(values: Iterable<string | number | null | undefined>): bigint {
  let total = 0n;
  for (const v of values) total += toMicros(v);
  return total;
}

const grouped = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** The absolute amount rounded half away from zero: "1,234.57" (no sign, no "$"). */
function absoluteText(micros: bigint, decimals: number): string {
  const abs = micros < 0n ? -micros : micros;
  const unit = 10n ** BigInt(SCALE - decimals);
  const rounded = (abs + unit / 2n) / unit;
  const digits = rounded.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  return decimals ? `${grouped(whole)}.${digits.slice(digits.length - decimals)}` : grouped(whole);
}

const isNegative = (micros: bigint, decimals = 2) =>
  micros < 0n && absoluteText(micros, decimals) !== absoluteText(0n, decimals);

/** "$1,234.50", "-$0.05", "$0.00": a dollar sign and exactly two decimals. */
export function formatMoney(value: string | number | bigint | null | undefined): string {
  const micros = typeof value === "bigint" ? value : toMicros(value);
  return `${isNegative(micros) ? "-" : ""}$${absoluteText(micros, 2)}`;
}

/**
 * A unit price keeps its sub-cent digits ("$0.0125") so a price is never shown rounded away;
 * at least two decimals ("$0.50").
 */
export function formatUnitPrice(value: string | number | null | undefined): string {
  const micros = toMicros(value);
  const text = absoluteText(micros, SCALE);
  const [whole, frac = ""] = text.split(".");
  return `${isNegative(micros, SCALE) ? "-" : ""}$${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

/** Balance: a negative amount (credit) reads "($12.34)" and is marked for green; zero is "$0.00". */
export function formatBalance(micros: bigint): { text: string; credit: boolean } {
  if (isNegative(micros)) return { text: `($${absoluteText(micros, 2)})`, credit: true };
  return { text: `$${absoluteText(micros < 0n ? 0n : micros, 2)}`, credit: false };
}

/** Micro-dollars as a float, for charts and percentages only (never for sums shown as money). */
export const microsToNumber = (micros: bigint) => Number(micros) / 1_000_000;

/** Share of a total as a whole percent in 0..100; 0 when the total is not positive. */
export function percentOf(part: bigint, total: bigint): number {
  if (total <= 0n || part <= 0n) return 0;
  const pct = Number((part * 10_000n) / total) / 100;
  return Math.min(100, Math.round(pct));
}
