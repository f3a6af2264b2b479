import { describe, expect, it } from "vitest";
import { completenessText, lateEventsText } from "../../src/pages/billing/completeness-text";

describe("completeness note", () => {
  it("says how far usage is complete, and plainly when no service reported it", () => {
    const when = (iso: string) => iso.slice(0, 16);
    expect(completenessText({ complete_through: "2026-02-20T09:00:00.000Z" }, when)).toBe(
      "Complete through 2026-02-20T09:00",
    );
    expect(completenessText({ complete_through: null }, when)).toBe("Completeness not reported");
  });

  it("counts the late events, and says nothing when there are none", () => {
    expect(lateEventsText({ late_events: 0 })).toBeNull();
    expect(lateEventsText({ late_events: 1 })).toBe("1 event arrived late");
    expect(lateEventsText({ late_events: 1234 })).toBe("1,234 events arrived late");
  });
});
