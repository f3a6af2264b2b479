// A link to the billing page opens the view it names: links from before the records table kept
// its state in Refine's parameters are translated once, hand-edited values dropped, and an
// address the page wrote itself is used as it is.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { searchWith } from "../../src/lib/address-query";
import { fixBillingAddress } from "../../src/lib/billing/address";

const CYCLE = "22222222-2222-4222-8222-222222222222";
const WS = ["aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002"] as const;
const DEFAULT_TABLE = {
  currentPage: 1,
  pageSize: 10,
  sorters: [{ field: "date", order: "desc" }],
  filters: [],
};

describe("billing links", () => {
  it("translates an older link's search, sort, page and filters into the table's parameters", () => {
    const old =
      `?period=${CYCLE}&workspace=${WS[0]}&workspace=${WS[1]}&eval_type=safety&operation=scoring` +
      "&modality=text&ground_truth=with&jailbreak=non&grouping=weekly&metric=usage" +
      "&search=Red+Team+%26+co&sort=-cost&page=2&utm=mail";
    expect(fixBillingAddress(old)).toEqual({
      utm: "mail",
      period: CYCLE,
      grouping: "weekly",
      metric: "usage",
      currentPage: 2,
      pageSize: 10,
      sorters: [{ field: "cost", order: "desc" }],
      filters: [
        { field: "workspace_uuid", operator: "in", value: [...WS] },
        { field: "eval_type", operator: "in", value: ["safety"] },
        { field: "operation", operator: "in", value: ["scoring"] },
        { field: "modality", operator: "in", value: ["text"] },
        { field: "ground_truth", operator: "eq", value: "with" },
        { field: "jailbreak", operator: "eq", value: "non" },
        { field: "search", operator: "contains", value: "Red Team & co" },
      ],
    });
    expect(fixBillingAddress("?sort=cost")).toMatchObject({ sorters: [{ field: "cost", order: "asc" }] });
    expect(fixBillingAddress("?page=3")).toEqual({ ...DEFAULT_TABLE, currentPage: 3 });
  });

  it("uses an address in the table's own parameters as it is", () => {
    expect(fixBillingAddress("")).toBeNull();
    expect(
      fixBillingAddress("?pageSize=10&currentPage=1&sorters[0][field]=date&sorters[0][order]=desc"),
    ).toBeNull();
    expect(
      fixBillingAddress(
        `?period=${CYCLE}&grouping=monthly&currentPage=4&pageSize=10&sorters[0][field]=cost&sorters[0][order]=asc` +
          "&filters[0][field]=eval_type&filters[0][operator]=in&filters[0][value][0]=safety" +
          "&filters[1][field]=search&filters[1][operator]=contains&filters[1][value]=Red%20Team%20%26%20co" +
          "&explain=cycle&rt=%2Fx",
      ),
    ).toBeNull();
  });

  it("drops unusable values, keeping the usable ones and other parameters", () => {
    expect(fixBillingAddress("?period=nope&page=-3&sort=password&grouping=hourly&eval_type=")).toEqual(
      DEFAULT_TABLE,
    );
    expect(fixBillingAddress("?currentPage=0&pageSize=500&explain=cycle")).toEqual({
      explain: "cycle",
      ...DEFAULT_TABLE,
    });
    expect(fixBillingAddress("?sorters[0][field]=password&sorters[0][order]=asc")).toEqual(DEFAULT_TABLE);
    expect(
      fixBillingAddress(
        "?currentPage=2&filters[0][field]=billing_cycle_uuid&filters[0][operator]=eq&filters[0][value]=x" +
          "&filters[1][field]=eval_type&filters[1][operator]=in&filters[1][value][0]=safety",
      ),
    ).toEqual({
      ...DEFAULT_TABLE,
      currentPage: 2,
      filters: [{ field: "eval_type", operator: "in", value: ["safety"] }],
    });
    expect(fixBillingAddress(`?period=${WS[0].toUpperCase()}`)).toEqual({ period: WS[0], ...DEFAULT_TABLE });
  });

  it("never throws, and the address it writes is used as it is on the next read", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(
            "period",
            "workspace",
            "eval_type",
            "sort",
            "page",
            "search",
            "grouping",
            "currentPage",
            "pageSize",
            "sorters[0][field]",
            "filters[0][value]",
            "filters[0][field]",
          ),
          fc.string(),
        ),
        (entries) => {
          const fixed = fixBillingAddress(`?${new URLSearchParams(entries)}`);
          if (fixed) expect(fixBillingAddress(searchWith("", fixed))).toBeNull();
        },
      ),
    );
  });
});
