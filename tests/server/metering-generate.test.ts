import { describe, expect, it } from "vitest";
import { validateEvent } from "../../server/metering/ingestion/events";
import { type GenerateOptions, generateUsageEvents } from "../../server/metering/ingestion/generate";

const WS = [
  "00000000-0000-4000-8000-000000000001",
  "00000000-0000-4000-8000-000000000002",
  "00000000-0000-4000-8000-000000000003",
  "00000000-0000-4000-8000-000000000004",
];
const base: GenerateOptions = {
  seed: 42,
  count: 20_000,
  // Four whole weeks, Sunday 2026-03-01 to Sunday 2026-03-29.
  from: new Date("2026-03-01T00:00:00Z"),
  to: new Date("2026-03-29T00:00:00Z"),
  workspaceUuids: WS,
  createdBy: ["ada@acme.test", "max@acme.test", "nia@acme.test"],
};

const countBy = <T>(items: T[], key: (t: T) => string) => {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return m;
};

describe("generateUsageEvents", () => {
  const events = [...generateUsageEvents(base)];

  it("is deterministic for a seed and differs between seeds", () => {
    expect([...generateUsageEvents(base)]).toEqual(events);
    const other = [...generateUsageEvents({ ...base, seed: 43, count: 200 })];
    expect(other.map((e) => e.occurred_at)).not.toEqual(events.slice(0, 200).map((e) => e.occurred_at));
  });

  it("yields exactly count valid events, ascending within [from, to), with unique ids", () => {
    expect(events).toHaveLength(base.count);
    const times = events.map((e) => Date.parse(e.occurred_at));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] as number);
    expect(times[0]).toBeGreaterThanOrEqual(base.from.getTime());
    expect(times.at(-1)).toBeLessThan(base.to.getTime());
    expect(new Set(events.map((e) => e.event_id)).size).toBe(base.count);
    expect(events[0]?.event_id).toBe("gen-42-0");
    const invalid = events.map((e) => validateEvent(e, base.to)).filter((v) => !v.ok);
    expect(invalid).toEqual([]);
  });

  it("has the promised shape: skew, weekday rhythm, ~5% unattributed, flags, both metrics, adjustments", () => {
    const types = countBy(events, (e) => e.eval_type);
    const ranked = [...types.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t);
    expect(ranked[0]).toBe("safety");
    expect(ranked).toEqual(
      expect.arrayContaining(["image_safety", "jailbreak", "accuracy", "hallucination"]),
    );
    expect(types.get("safety") as number).toBeGreaterThan(3 * (types.get("bias") as number));

    const ws = countBy(events, (e) => e.workspace_uuid ?? "none");
    const none = (ws.get("none") ?? 0) / events.length;
    expect(none).toBeGreaterThan(0.03);
    expect(none).toBeLessThan(0.07);
    expect(ws.get(WS[0] as string) as number).toBeGreaterThan(ws.get(WS[3] as string) as number);

    const weekday = countBy(events, (e) => String(new Date(e.occurred_at).getUTCDay()));
    const weekdayAvg = [1, 2, 3, 4, 5].reduce((s, d) => s + (weekday.get(String(d)) ?? 0), 0) / 5;
    const weekendAvg = ((weekday.get("0") ?? 0) + (weekday.get("6") ?? 0)) / 2;
    expect(weekdayAvg).toBeGreaterThan(2 * weekendAvg);

    const jb = events.filter((e) => e.is_jailbreak);
    expect(jb.length / events.length).toBeGreaterThan(0.1);
    expect(jb.length / events.length).toBeLessThan(0.3);
    expect(events.filter((e) => e.has_ground_truth).length).toBeGreaterThan(events.length / 10);
    expect(new Set(events.map((e) => e.rule_metric))).toEqual(new Set(["eval", "prompt"]));
    expect(new Set(events.map((e) => e.operation))).toEqual(new Set(["generation", "scoring"]));
    expect(events.every((e) => (e.quantity ?? 1) >= 1)).toBe(true);

    const adjustments = events.filter((e) => e.cost !== undefined);
    expect(adjustments).toHaveLength(5);
    expect(adjustments.every((e) => !!e.notes)).toBe(true);
    expect(adjustments.some((e) => String(e.cost).startsWith("-"))).toBe(true);
    expect(events.filter((e) => e.notes)).toHaveLength(5);
  });

  it("handles partial days, no workspaces or creators, and refuses bad options", () => {
    const few = [
      ...generateUsageEvents({
        ...base,
        count: 50,
        from: new Date("2026-03-03T17:30:00Z"),
        to: new Date("2026-03-04T02:00:00Z"),
        workspaceUuids: [],
        createdBy: [],
        idPrefix: "x",
      }),
    ];
    expect(few).toHaveLength(50);
    expect(few.every((e) => e.workspace_uuid === null && e.created_by === null)).toBe(true);
    expect(few.every((e) => e.occurred_at >= "2026-03-03T17:30" && e.occurred_at < "2026-03-04T02:00")).toBe(
      true,
    );
    expect(few[49]?.event_id).toBe("x-49");
    expect([...generateUsageEvents({ ...base, count: 0 })]).toEqual([]);
    expect(() => [...generateUsageEvents({ ...base, to: base.from })]).toThrow(RangeError);
    expect(() => [...generateUsageEvents({ ...base, count: -1 })]).toThrow(RangeError);
  });
});
