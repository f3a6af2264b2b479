import { describe, expect, it } from "vitest";
import {
  MAX_FUTURE_MS,
  UsageEventInput,
  utcDay,
  validateEvent,
} from "../../server/metering/ingestion/events";
import { rollUp } from "../../server/metering/ingestion/ingest";
import {
  compareRules,
  createRuleMatcher,
  DIMENSION_ORDER,
  matchPriceRule,
  type PriceRule,
  specificity,
  whyRankedBefore,
} from "../../server/metering/pricing/rule-matching";
import { parsePriceSetArgs } from "../../server/metering/shared/cli-args";

const T0 = new Date("2026-01-01T00:00:00Z");
let n = 0;
const rule = (r: Partial<PriceRule>): PriceRule => ({
  priceRuleUuid: `00000000-0000-0000-0000-${String(++n).padStart(12, "0")}`,
  organizationUuid: null,
  operation: null,
  evalType: null,
  modality: null,
  ruleMetric: null,
  unitPriceMicros: 1n,
  validFrom: T0,
  validTo: null,
  ...r,
});
const event = {
  organizationUuid: "org-a",
  operation: "generation",
  evalType: "safety",
  modality: "text",
  ruleMetric: "eval" as const,
  occurredAt: new Date("2026-03-01T12:00:00Z"),
};

describe("price-rule matching", () => {
  it("picks the most specific rule, then the newest valid_from", () => {
    const any = rule({ unitPriceMicros: 1n });
    const op = rule({ operation: "generation", unitPriceMicros: 2n });
    const opType = rule({ operation: "generation", evalType: "safety", unitPriceMicros: 3n });
    const newerOp = rule({
      operation: "generation",
      validFrom: new Date("2026-02-01Z"),
      unitPriceMicros: 4n,
    });
    expect(specificity(opType)).toBe(2);
    expect(matchPriceRule([any], event)).toBe(any);
    expect(matchPriceRule([any, op], event)).toBe(op);
    expect(matchPriceRule([op, opType, any], event)).toBe(opType);
    expect(matchPriceRule([op, newerOp], event)).toBe(newerOp);
    expect(matchPriceRule([newerOp, op], event)).toBe(newerOp);
    const full = rule({ operation: "generation", evalType: "safety", modality: "TEXT", ruleMetric: "eval" });
    expect(matchPriceRule([opType, full], event)).toBe(full);
  });

  it("ignores rules for other values, other organizations and outside [valid_from, valid_to)", () => {
    const scoring = rule({ operation: "scoring" });
    const prompt = rule({ ruleMetric: "prompt" });
    const image = rule({ modality: "image" });
    const otherOrg = rule({ organizationUuid: "org-b" });
    const future = rule({ validFrom: new Date("2026-03-01T12:00:01Z") });
    const ended = rule({ validTo: event.occurredAt });
    expect(matchPriceRule([scoring, prompt, image, otherOrg, future, ended], event)).toBeNull();
    const startsNow = rule({ validFrom: event.occurredAt, validTo: new Date("2026-03-01T12:00:01Z") });
    expect(matchPriceRule([startsNow], event)).toBe(startsNow);
    // An event without modality only matches rules that leave modality open.
    expect(matchPriceRule([image], { ...event, modality: "" })).toBeNull();
  });

  it("prefers the organization's own rule over the global price list", () => {
    const global = rule({ operation: "generation", evalType: "safety", modality: "text" });
    const own = rule({ organizationUuid: "org-a" });
    expect(matchPriceRule([global, own], event)).toBe(own);
    expect(compareRules(own, global)).toBeLessThan(0);
    const tieA = rule({ operation: "generation" });
    const tieB = rule({ operation: "generation" });
    expect(matchPriceRule([tieB, tieA], event)).toBe(matchPriceRule([tieA, tieB], event));
  });
});

describe("price-rule tie-break between rules naming equally many dimensions", () => {
  it("lets the rule naming eval_type win over an older or newer one naming rule_metric", () => {
    // docs/pricing.md's example: the organization priced generation evals, then an operator sets a
    // price for one eval type's generations. Whichever is newer, the eval type's price wins.
    const byMetric = rule({ organizationUuid: "org-a", operation: "generation", ruleMetric: "eval" });
    const byType = rule({ organizationUuid: "org-a", operation: "generation", evalType: "safety" });
    const newerByMetric = { ...byMetric, validFrom: new Date("2026-02-01Z") };
    expect(matchPriceRule([byMetric, byType], event)).toBe(byType);
    expect(matchPriceRule([newerByMetric, byType], event)).toBe(byType);
    expect(matchPriceRule([byType, newerByMetric], event)).toBe(byType);
    expect(createRuleMatcher([newerByMetric, byType])(event)).toBe(byType);
    expect(whyRankedBefore(byType, newerByMetric)).toBe("dimension_order");
    expect(whyRankedBefore(newerByMetric, byType)).toBeNull();
  });

  it("follows the documented order eval_type, operation, modality, rule_metric", () => {
    expect([...DIMENSION_ORDER]).toEqual(["evalType", "operation", "modality", "ruleMetric"]);
    const one = {
      evalType: rule({ evalType: "safety" }),
      operation: rule({ operation: "generation", validFrom: new Date("2026-02-01Z") }),
      modality: rule({ modality: "text", validFrom: new Date("2026-02-02Z") }),
      ruleMetric: rule({ ruleMetric: "eval", validFrom: new Date("2026-02-03Z") }),
    };
    const all = Object.values(one);
    expect(matchPriceRule(all, event)).toBe(one.evalType);
    expect(matchPriceRule(all.slice(1), event)).toBe(one.operation);
    expect(matchPriceRule(all.slice(2), event)).toBe(one.modality);
    // Two dimensions each: the pair holding the earliest dimension wins, then the next one.
    const typeMetric = rule({ evalType: "safety", ruleMetric: "eval" });
    const opModality = rule({
      operation: "generation",
      modality: "text",
      validFrom: new Date("2026-02-01Z"),
    });
    const opMetric = rule({
      operation: "generation",
      ruleMetric: "eval",
      validFrom: new Date("2026-02-02Z"),
    });
    expect(matchPriceRule([opModality, typeMetric, opMetric], event)).toBe(typeMetric);
    expect(matchPriceRule([opMetric, opModality], event)).toBe(opModality);
    // More dimensions still win first, and the same dimensions still go to the newest.
    const three = rule({ operation: "generation", modality: "text", ruleMetric: "eval" });
    expect(matchPriceRule([typeMetric, three], event)).toBe(three);
    expect(whyRankedBefore(three, typeMetric)).toBe("more_dimensions");
    const newerTypeMetric = { ...typeMetric, priceRuleUuid: "f", validFrom: new Date("2026-02-05Z") };
    expect(matchPriceRule([typeMetric, newerTypeMetric], event)).toBe(newerTypeMetric);
    expect(whyRankedBefore(newerTypeMetric, typeMetric)).toBe("newer");
  });
});

describe("price-rule matching for a batch", () => {
  it("answers what matchPriceRule answers, for every combination and time tried", () => {
    const at = (d: string) => new Date(`${d}T00:00:00Z`);
    const rules = [
      rule({}),
      rule({ operation: "generation", validTo: at("2026-03-01") }),
      rule({ operation: "generation", validFrom: at("2026-03-01") }),
      rule({
        operation: "generation",
        evalType: "safety",
        validFrom: at("2026-02-01"),
        validTo: at("2026-04-01"),
      }),
      rule({ modality: "IMAGE" }),
      rule({ ruleMetric: "prompt", validFrom: at("2026-03-15") }),
      rule({ organizationUuid: "org-a", operation: "scoring" }),
      rule({ organizationUuid: "org-b" }),
      rule({ operation: "judging", validFrom: at("2026-05-01") }),
    ];
    const match = createRuleMatcher(rules, 3);
    let compared = 0;
    for (const organizationUuid of ["org-a", "org-b", "org-c"])
      for (const operation of ["generation", "scoring", "judging"])
        for (const evalType of ["safety", "bias"])
          for (const modality of ["", "image", "text"])
            for (const ruleMetric of ["eval", "prompt"] as const)
              for (const day of ["2025-12-31", "2026-02-15", "2026-03-01", "2026-03-20", "2026-06-01"]) {
                const e = {
                  organizationUuid,
                  operation,
                  evalType,
                  modality,
                  ruleMetric,
                  occurredAt: at(day),
                };
                expect(match(e)).toBe(matchPriceRule(rules, e));
                compared++;
              }
    expect(compared).toBe(540);
    // A rule that fits the dimensions but not yet in force at that time is skipped, not chosen.
    expect(match({ ...event, operation: "judging", occurredAt: at("2026-04-30") })?.operation).toBeNull();
  });
});

describe("event validation", () => {
  const now = new Date("2026-03-01T12:00:00Z");
  const ok = {
    event_id: "e1",
    occurred_at: "2026-03-01T11:00:00Z",
    operation: "generation",
    eval_type: "safety",
  };

  it("normalizes a minimal event with defaults", () => {
    const v = validateEvent({ ...ok, modality: " Image ", event_id: " e1 " }, now);
    expect(v).toEqual({
      ok: true,
      event: expect.objectContaining({
        eventId: "e1",
        occurredAt: new Date("2026-03-01T11:00:00Z"),
        modality: "image",
        quantity: 1,
        ruleMetric: "eval",
        isJailbreak: false,
        hasGroundTruth: false,
        costMicros: null,
        workspaceUuid: null,
      }),
    });
    const offset = validateEvent({ ...ok, occurred_at: "2026-03-01T13:00:00+02:00" }, now);
    expect(offset.ok && offset.event.occurredAt.toISOString()).toBe("2026-03-01T11:00:00.000Z");
  });

  it("rejects with a reason naming the field", () => {
    const reason = (raw: unknown) => {
      const v = validateEvent(raw, now);
      return v.ok ? "ok" : v.reason;
    };
    expect(reason(null)).toMatch(/JSON object/);
    expect(reason([])).toMatch(/JSON object/);
    expect(reason({ ...ok, event_id: undefined })).toBe("event_id is required");
    expect(reason({ ...ok, event_id: "  " })).toMatch(/event_id must not be empty/);
    expect(reason({ ...ok, occurred_at: "yesterday" })).toMatch(/occurred_at/);
    expect(reason({ ...ok, operation: 5 })).toMatch(/operation must be a string/);
    expect(reason({ ...ok, quantity: 0 })).toMatch(/quantity/);
    expect(reason({ ...ok, quantity: 1.5 })).toMatch(/quantity/);
    expect(reason({ ...ok, rule_metric: "tokens" })).toMatch(/rule_metric/);
    expect(reason({ ...ok, workspace_uuid: "nope" })).toMatch(/workspace_uuid/);
    expect(reason({ ...ok, colour: "red" })).toBe("unknown field(s): colour");
    expect(reason({ ...ok, cost: "-1.00" })).toMatch(/needs notes/);
    expect(reason({ ...ok, cost: "abc", notes: "x" })).toMatch(/^cost: /);
    expect(validateEvent({ ...ok, event_id: 7 }, now)).toMatchObject({ ok: false, eventId: null });
    expect(validateEvent({ ...ok, quantity: 0 }, now)).toMatchObject({ ok: false, eventId: "e1" });
  });

  it("accepts up to 5 minutes of clock skew and no more", () => {
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    expect(validateEvent({ ...ok, occurred_at: at(MAX_FUTURE_MS) }, now).ok).toBe(true);
    const late = validateEvent({ ...ok, occurred_at: at(MAX_FUTURE_MS + 1000) }, now);
    expect(late).toMatchObject({ ok: false, reason: expect.stringMatching(/5 minutes in the future/) });
  });

  it("gives the schema's own result for valid and invalid events alike (the compiled fast path)", () => {
    const variants: unknown[] = [
      ok,
      { ...ok, name: "  spaced  ", modality: "", created_by: null, eval_uuid: undefined },
      {
        ...ok,
        workspace_uuid: "0b7f3c4e-1a2b-4c3d-8e9f-0123456789ab",
        quantity: 1_000_000,
        rule_metric: "prompt",
      },
      { ...ok, is_jailbreak: true, has_ground_truth: false, notes: "n", cost: "-1.5" },
      { ...ok, quantity: 1_000_001 },
      { ...ok, quantity: 2 ** 53 },
      { ...ok, occurred_at: "2026-02-30T00:00:00Z" },
      { ...ok, occurred_at: "2026-03-01T24:00:00Z" },
      { ...ok, occurred_at: "2026-03-01T11:00:00" },
      { ...ok, event_id: "x".repeat(201) },
      { ...ok, event_id: " \u0000 " },
      { ...ok, name: "\ud800" },
      { ...ok, is_jailbreak: "yes" },
      { ...ok, workspace_uuid: "0B7F3C4E-1A2B-4C3D-8E9F-0123456789AB" },
      { ...ok, extra: 1 },
      Object.assign(Object.create({ inherited: 1 }), ok),
      "event",
    ];
    for (const raw of variants) {
      const schema = UsageEventInput.safeParse(raw);
      const v = validateEvent(raw, now);
      expect(v.ok, JSON.stringify(raw)).toBe(schema.success);
      if (v.ok && schema.data) expect(v.event.eventId).toBe(schema.data.event_id);
    }
  });

  it("reads adjustments with a negative cost", () => {
    const v = validateEvent({ ...ok, cost: "-2.50", notes: "credit for a failed run" }, now);
    expect(v.ok && v.event.costMicros).toBe(-2_500_000n);
    const num = validateEvent({ ...ok, cost: 1.25, notes: "manual" }, now);
    expect(num.ok && num.event.costMicros).toBe(1_250_000n);
  });
});

describe("daily rollup", () => {
  it("groups by UTC day and dimensions, summing in integers", () => {
    const base = {
      organizationUuid: "o",
      operation: "generation",
      evalType: "safety",
      modality: "",
      isJailbreak: false,
      hasGroundTruth: false,
      ruleMetric: "eval",
      unitPriceMicros: 1n,
      workspaceUuid: null,
    };
    const rows = [
      { ...base, eventId: "a", occurredAt: new Date("2026-03-01T23:59:59Z"), quantity: 2, costMicros: 3n },
      { ...base, eventId: "b", occurredAt: new Date("2026-03-01T00:00:00Z"), quantity: 1, costMicros: -1n },
      { ...base, eventId: "c", occurredAt: new Date("2026-03-02T00:00:00Z"), quantity: 5, costMicros: 7n },
      {
        ...base,
        eventId: "d",
        occurredAt: new Date("2026-03-01T05:00:00Z"),
        quantity: 1,
        costMicros: 1n,
        isJailbreak: true,
      },
    ];
    const daily = rollUp("o", rows);
    expect(daily).toHaveLength(3);
    const first = daily.find((d) => d.day === "2026-03-01" && !d.isJailbreak);
    expect(first).toMatchObject({ eventCount: 2, quantitySum: 3, costMicrosSum: 2n });
    expect(utcDay(new Date("2026-03-01T23:59:59.999Z"))).toBe("2026-03-01");
  });
});

describe("price set arguments", () => {
  it("reads flags into a rule", () => {
    const r = parsePriceSetArgs([
      "set",
      "--operation",
      "generation",
      "--eval-type",
      "safety",
      "--unit-price",
      "0.0125",
    ]);
    expect(r).toEqual({
      ok: true,
      value: {
        organizationUuid: null,
        operation: "generation",
        evalType: "safety",
        modality: null,
        ruleMetric: null,
        unitPrice: 12_500n,
      },
    });
    const all = parsePriceSetArgs([
      "set",
      "--unit-price=2",
      "--rule-metric",
      "prompt",
      "--valid-from",
      "2026-01-01T00:00:00Z",
      "--org",
      "org-a",
    ]);
    expect(all.ok && all.value).toMatchObject({
      unitPrice: 2_000_000n,
      ruleMetric: "prompt",
      organizationUuid: "org-a",
      validFrom: new Date("2026-01-01T00:00:00Z"),
    });
  });

  it("explains what is wrong", () => {
    const err = (args: string[]) => {
      const r = parsePriceSetArgs(args);
      return r.ok ? "ok" : r.error;
    };
    expect(err([])).toMatch(/^Usage/);
    expect(err(["set", "--operation", "generation"])).toMatch(/--unit-price is required/);
    expect(err(["set", "--unit-price", "-1"])).toMatch(/cannot be negative/);
    expect(err(["set", "--unit-price", "0.0000001"])).toMatch(/more than 6 decimals/);
    expect(err(["set", "--unit-price", "1", "--colour", "red"])).toMatch(/Unknown option "--colour"/);
    expect(err(["set", "--unit-price"])).toMatch(/needs a value/);
    expect(err(["set", "--unit-price", "1", "--rule-metric", "x"])).toMatch(/rule-metric/);
    expect(err(["set", "--unit-price", "1", "--valid-from", "soon"])).toMatch(/valid-from/);
  });
});
