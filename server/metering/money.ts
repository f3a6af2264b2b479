/**
 * Money as integer micro-dollars (bigint): 1 USD = 1,000,000 micros. Amounts enter as decimal
 * strings (or numbers, read through their shortest decimal form) and leave as decimal strings;
 * nothing is ever added in floating point.
 */

export const MICROS_PER_USD = 1_000_000n;
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
 * Micro-dollars as a decimal string with exactly `decimals` places (default 2), rounding half away
 * from zero: 12340000n → "12.34", -500000n → "-0.50", 12500n → "0.01".
 */
export function formatUsd(micros: bigint, decimals = 2): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > SCALE)
    throw new MoneyError(`decimals must be 0..${SCALE}`);
  const negative = micros < 0n;
  let abs = negative ? -micros : micros;
  const unit = 10n ** BigInt(SCALE - decimals);
  abs = (abs + unit / 2n) / unit; // half away from zero on the absolute value
  const digits = abs.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const frac = decimals ? `.${digits.slice(digits.length - decimals)}` : "";
  return `${negative && abs !== 0n ? "-" : ""}${whole}${frac}`;
}

/** The exact amount, at least 2 decimals and no trailing zeros beyond: 12500n → "0.0125". */
export function formatUsdExact(micros: bigint): string {
  const full = formatUsd(micros, SCALE);
  const [whole, frac = ""] = full.split(".");
  return `${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
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
