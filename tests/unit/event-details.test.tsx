import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { UsageRecord } from "../../contract/usage-schemas";
import { costArithmetic, EventDetails } from "../../src/pages/billing/event-details";
import { renderPage } from "./support/render-page";
import { usageRecord } from "./support/usage-record";

const RULE = "7c0d5a2e-1b3f-4e6a-9d8c-0123456789ab";

const record = (over: Partial<UsageRecord> = {}) =>
  usageRecord({ price_rule_uuid: RULE, price_rule_version: 2, ...over });

/** The value cell beside a label of the details card. */
const rowOf = (label: string) => {
  const row = screen.getByText(label).closest("tr");
  if (!row) throw new Error(`no row labelled ${label}`);
  return row;
};

describe("Usage event details: provenance", () => {
  it("shows the price rule that priced the event, its version, and quantity × unit price = cost", async () => {
    renderPage(<EventDetails record={record()} />, { route: "/" });
    await screen.findByText("Price Rule");
    const rule = rowOf("Price Rule");
    expect(within(rule).getByText(RULE)).toBeInTheDocument();
    expect(within(rule).getByText("Version 2")).toBeInTheDocument();
    expect(within(rowOf("Unit Price")).getByText("$0.0125")).toBeInTheDocument();
    expect(within(rowOf("Quantity × Unit Price")).getByText("3 × $0.0125 = $0.0375")).toBeInTheDocument();
  });

  it("shows a dash for an event no rule priced (a price adjustment)", async () => {
    renderPage(
      <EventDetails
        record={record({
          price_rule_uuid: null,
          price_rule_version: null,
          quantity: 1,
          unit_price: "0",
          cost: "-5",
          notes: "credit",
        })}
      />,
      { route: "/" },
    );
    await screen.findByText("Price Rule");
    expect(within(rowOf("Price Rule")).getByText("-")).toBeInTheDocument();
    expect(
      within(rowOf("Quantity × Unit Price")).getByText(
        "1 × $0.00 = $0.00; the cost, -$5.00, was sent with the event (a price adjustment)",
      ),
    ).toBeInTheDocument();
  });

  it("keeps sub-cent digits in the arithmetic so it reads right", () => {
    expect(costArithmetic({ quantity: 7, unit_price: "0.001", cost: "0.007" })).toBe("7 × $0.001 = $0.007");
    // An adjustment a rule matched keeps the rule's price but its own cost.
    expect(costArithmetic({ quantity: 2, unit_price: "0.01", cost: "-3" })).toBe(
      "2 × $0.01 = $0.02; the cost, -$3.00, was sent with the event (a price adjustment)",
    );
  });
});
