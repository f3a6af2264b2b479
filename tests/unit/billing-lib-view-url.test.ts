// The billing view beside the records table in the address (period, chart toggles): what a link
// says is what opens, and a bad value opens the default instead of failing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, parseBillingView, viewQuery } from "../../src/lib/billing/view-url";

const CYCLE = "22222222-2222-4222-8222-222222222222";

const parse = (query: string) => parseBillingView(new URLSearchParams(query));

describe("billing view in the address", () => {
  it("reads the period and the chart's toggles, and writes them back under the same names", () => {
    const view = parse(`period=${CYCLE.toUpperCase()}&grouping=weekly&metric=usage&utm=mail`);
    expect(view).toEqual({ cycleUuid: CYCLE, grouping: "weekly", metric: "usage" });
    expect(viewQuery(view)).toEqual({ period: CYCLE, grouping: "weekly", metric: "usage" });
  });

  it("leaves defaults out, so the plain view adds nothing to the address", () => {
    expect(parse("")).toEqual(DEFAULT_VIEW);
    expect(viewQuery(DEFAULT_VIEW)).toEqual({ period: undefined, grouping: undefined, metric: undefined });
  });

  it("reads garbage and stale values as the defaults", () => {
    expect(parse("period=not-a-uuid&grouping=hourly&metric=money")).toEqual(DEFAULT_VIEW);
    expect(parse("period=&grouping=&metric=")).toEqual(DEFAULT_VIEW);
  });

  it("never throws, and what it reads is written back unchanged", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("period", "grouping", "metric", "other"), fc.string()),
        (entries) => {
          const view = parseBillingView(new URLSearchParams(entries));
          const written = Object.entries(viewQuery(view)).filter(
            (e): e is [string, string] => e[1] !== undefined,
          );
          expect(parseBillingView(new URLSearchParams(written))).toEqual(view);
        },
      ),
    );
  });
});
