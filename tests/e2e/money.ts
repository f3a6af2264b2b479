// Money as the browser tests compute their expectations: exact integer micro-dollars, worked out
// here independently of contract/money.ts so that a bug there cannot hide in both sides.

/** An API amount ("12.345678", "-0.05") as micro-dollars. */
export const micros = (v: string) => {
  const m = /^(-)?(\d*)(?:\.(\d*))?$/.exec(v.trim());
  if (!m) throw new Error(`not an amount: ${v}`);
  const n = BigInt(m[2] || "0") * 1_000_000n + BigInt((m[3] ?? "").slice(0, 6).padEnd(6, "0"));
  return m[1] ? -n : n;
};

/** As the page shows money: "$1,234.57", rounded half away from zero. */
export const usd = (n: bigint) => {
  const abs = n < 0n ? -n : n;
  const cents = (abs + 5_000n) / 10_000n;
  const whole = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const text = `$${whole}.${(cents % 100n).toString().padStart(2, "0")}`;
  return n < 0n && cents > 0n ? `-${text}` : text;
};
