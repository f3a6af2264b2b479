// The billing view in the address: what a link says is what opens, and a bad link opens the
// default view instead of failing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SORTABLE } from "../../src/lib/billing/filters";
import {
  type BillingView,
  DEFAULT_VIEW,
  parseBillingView,
  writeBillingView,
} from "../../src/lib/billing/view-url";

const CYCLE = "22222222-2222-4222-8222-222222222222";
const WS = ["aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002"] as const;

const parse = (query: string) => parseBillingView(new URLSearchParams(query));

const full: BillingView = {
  cycleUuid: CYCLE,
  filters: {
    workspaceUuids: [...WS],
    evalTypes: ["accuracy", "image_safety"],
    operations: ["scoring"],
    modalities: ["text"],
    groundTruth: "without",
    jailbreak: "only",
  },
  grouping: "weekly",
  metric: "usage",
  search: "red team & co",
  sort: { field: "cost", order: "asc" },
  page: 3,
};

describe("billing view in the address", () => {
  it("writes a readable query and reads it back as the same view", () => {
    const query = writeBillingView(full).toString();
    expect(query).toBe(
      `period=${CYCLE}&workspace=${WS[0]}&workspace=${WS[1]}&eval_type=accuracy&eval_type=image_safety` +
        "&operation=scoring&modality=text&ground_truth=without&jailbreak=only&grouping=weekly&metric=usage" +
        "&search=red+team+%26+co&sort=cost&page=3",
    );
    expect(parse(query)).toEqual(full);
  });

  it("leaves defaults out, so the plain view's address has no query", () => {
    expect(writeBillingView(DEFAULT_VIEW).toString()).toBe("");
    expect(parse("")).toEqual(DEFAULT_VIEW);
    expect(writeBillingView({ ...DEFAULT_VIEW, sort: { field: "date", order: "asc" } }).toString()).toBe(
      "sort=date",
    );
  });

  it("keeps parameters that are not the view's and replaces the view's own", () => {
    const params = new URLSearchParams("utm=mail&page=9&eval_type=safety");
    expect(writeBillingView({ ...DEFAULT_VIEW, page: 2 }, params).toString()).toBe("utm=mail&page=2");
    expect(params.toString()).toBe("utm=mail&page=9&eval_type=safety");
  });

  it("reads garbage, stale and out-of-range values as the defaults", () => {
    expect(
      parse(
        "period=not-a-uuid&workspace=x&workspace=&grouping=hourly&metric=money&sort=-password" +
          "&page=-2&ground_truth=maybe&jailbreak=1",
      ),
    ).toEqual(DEFAULT_VIEW);
    expect(parse("page=abc").page).toBe(1);
    expect(parse("page=0").page).toBe(1);
    expect(parse("page=2.5").page).toBe(1);
    expect(parse("page=99999999").page).toBe(1);
    expect(parse("page=1e3").page).toBe(1);
    expect(parse("sort=").sort).toEqual(DEFAULT_VIEW.sort);
    expect(parse("sort=--cost").sort).toEqual(DEFAULT_VIEW.sort);
  });

  it("keeps only usable values of lists, once each, and limits text to what the API accepts", () => {
    const view = parse(
      `workspace=${WS[0].toUpperCase()}&workspace=nope&workspace=${WS[0]}` +
        `&eval_type=safety&eval_type=%20safety%20&eval_type=${"x".repeat(201)}&search=${"s".repeat(300)}`,
    );
    expect(view.filters.workspaceUuids).toEqual([WS[0]]);
    expect(view.filters.evalTypes).toEqual(["safety"]);
    expect(view.search).toHaveLength(200);
    expect(parse("search=%20%20").search).toBe("");
  });

  it("reads every sortable column in both directions", () => {
    for (const field of SORTABLE) {
      expect(parse(`sort=${field}`).sort).toEqual({ field, order: "asc" });
      expect(parse(`sort=-${field}`).sort).toEqual({ field, order: "desc" });
    }
  });

  it("never throws, and what it reads is written back unchanged (one canonical address)", () => {
    fc.assert(
      fc.property(fc.string(), (query) => {
        const view = parseBillingView(new URLSearchParams(query));
        const again = parseBillingView(writeBillingView(view));
        expect(again).toEqual(view);
        expect(writeBillingView(again).toString()).toBe(writeBillingView(view).toString());
      }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom("period", "workspace", "eval_type", "sort", "page", "search", "grouping"),
          fc.string(),
        ),
        (entries) => {
          const view = parseBillingView(new URLSearchParams(entries));
          expect(view.page).toBeGreaterThanOrEqual(1);
          expect(parseBillingView(writeBillingView(view))).toEqual(view);
        },
      ),
    );
  });
});
