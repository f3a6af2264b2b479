import { describe, expect, it } from "vitest";
import {
  formatBalance,
  formatMoney,
  formatUnitPrice,
  formatUsd,
  formatUsdExact,
  parseUsd,
  percentOf,
  sumMicros,
  toMicros,
  tryParseUsd,
} from "../../contract/money";

// Money as both the server (exact decimal strings in and out) and the console ("$" and two
// decimals on screen) use it.

describe("money in micro-dollars", () => {
  it("parses decimal strings and numbers exactly", () => {
    expect(parseUsd("12.34")).toBe(12_340_000n);
    expect(parseUsd("-0.50")).toBe(-500_000n);
    expect(parseUsd("+3")).toBe(3_000_000n);
    expect(parseUsd(" 0.0125 ")).toBe(12_500n);
    expect(parseUsd(0.0125)).toBe(12_500n);
    expect(parseUsd(0.1)).toBe(100_000n);
    expect(parseUsd(-7)).toBe(-7_000_000n);
    expect(parseUsd("1.5000000")).toBe(1_500_000n);
    expect(parseUsd("123456789012.123456")).toBe(123_456_789_012_123_456n);
  });

  it("refuses what is not an exact decimal of at most 6 places", () => {
    for (const bad of ["", "abc", "1.2.3", "1e3", "$1", "1,5", "0.0000001", ".5", "5."])
      expect(tryParseUsd(bad), bad).toBeNull();
    expect(tryParseUsd(1e-7)).toBeNull();
    expect(tryParseUsd(Number.NaN)).toBeNull();
    expect(tryParseUsd(Number.POSITIVE_INFINITY)).toBeNull();
  });

  it("formats with two decimals, rounding half away from zero", () => {
    expect(formatUsd(12_340_000n)).toBe("12.34");
    expect(formatUsd(-500_000n)).toBe("-0.50");
    expect(formatUsd(0n)).toBe("0.00");
    expect(formatUsd(12_500n)).toBe("0.01");
    expect(formatUsd(4_999n)).toBe("0.00");
    expect(formatUsd(5_000n)).toBe("0.01");
    expect(formatUsd(-5_000n)).toBe("-0.01");
    expect(formatUsd(-4_999n)).toBe("0.00");
    expect(formatUsd(1_234_567n, 6)).toBe("1.234567");
    expect(formatUsd(1_500_000n, 0)).toBe("2");
    expect(formatUsdExact(12_500n)).toBe("0.0125");
    expect(formatUsdExact(-3_000_000n)).toBe("-3.00");
  });

  it("round-trips and sums without floating point", () => {
    let seed = 42;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 500; i++) {
      const micros = BigInt(next()) * BigInt(next()) * (next() % 2 ? -1n : 1n);
      expect(parseUsd(formatUsd(micros, 6))).toBe(micros);
    }
    // 0.1 + 0.2 in floats is 0.30000000000000004; in micros it is exact.
    expect(formatUsd(sumMicros([parseUsd("0.1"), parseUsd("0.2")]))).toBe("0.30");
    expect(sumMicros(["9007199254740993", 1n, null, undefined, 2])).toBe(9_007_199_254_740_996n);
    expect(() => sumMicros([0.5])).toThrow();
  });
});

describe("money on screen", () => {
  it("shows a dollar sign and exactly two decimals, rounding half away from zero", () => {
    expect(formatMoney("12.3")).toBe("$12.30");
    expect(formatMoney("0")).toBe("$0.00");
    expect(formatMoney(null)).toBe("$0.00");
    expect(formatMoney("0.005")).toBe("$0.01");
    expect(formatMoney("0.0049")).toBe("$0.00");
    expect(formatMoney("-0.05")).toBe("-$0.05");
    expect(formatMoney("-0.001")).toBe("$0.00");
    expect(formatMoney("1234567.891")).toBe("$1,234,567.89");
    expect(formatMoney(0.1 + 0.2)).toBe("$0.30");
    expect(formatMoney(12_340_000n)).toBe("$12.34");
  });

  it("reads received amounts for display: unreadable or missing is 0, numbers round to micros", () => {
    expect(sumMicros(["0.1", "0.2", "0.0125", null, -0.05].map(toMicros))).toBe(262_500n);
    expect(toMicros("abc")).toBe(0n);
    expect(toMicros(".5")).toBe(0n);
    expect(toMicros(undefined)).toBe(0n);
    expect(toMicros(Number.NaN)).toBe(0n);
    expect(toMicros(0.1 + 0.2)).toBe(300_000n);
    expect(toMicros(-0.0000004)).toBe(0n);
  });

  it("keeps a unit price's sub-cent digits", () => {
    expect(formatUnitPrice("0.0125")).toBe("$0.0125");
    expect(formatUnitPrice("0.5")).toBe("$0.50");
    expect(formatUnitPrice("2")).toBe("$2.00");
  });

  it("shows a negative balance in parentheses as credit and zero as $0.00", () => {
    expect(formatBalance(-12_340_000n)).toEqual({ text: "($12.34)", credit: true });
    expect(formatBalance(0n)).toEqual({ text: "$0.00", credit: false });
    expect(formatBalance(-1n)).toEqual({ text: "$0.00", credit: false });
    expect(formatBalance(5_000_000n)).toEqual({ text: "$5.00", credit: false });
  });

  it("gives whole percents of a positive total", () => {
    expect(percentOf(1n, 3n)).toBe(33);
    expect(percentOf(2n, 3n)).toBe(67);
    expect(percentOf(5n, 0n)).toBe(0);
    expect(percentOf(-5n, 10n)).toBe(0);
    expect(percentOf(20n, 10n)).toBe(100);
  });
});
