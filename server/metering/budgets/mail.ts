/** The budget alert emails: one for a threshold reached, one for an alert resolved. */
import { formatMoney } from "../../../contract/money";
import type { AlertRecord } from "./store";
import { reached } from "./store";

export type BudgetMail = { to: string; subject: string; text: string };

export type BudgetMailContext = {
  organizationName: string;
  /** The console's Billing & Usage page, where budgets are managed. */
  consoleUrl: string;
};

const day = (cycleStart: string) => cycleStart.slice(0, 10);

/** Who the alert is about: the workspace's name, or the organization's for its own budget. */
const subjectName = (r: AlertRecord, ctx: BudgetMailContext) =>
  r.workspace_uuid === null ? ctx.organizationName : (r.workspace_name ?? "A deleted workspace");

export function budgetAlertMail(
  r: AlertRecord,
  state: "triggered" | "resolved",
  ctx: BudgetMailContext,
): Omit<BudgetMail, "to"> {
  const name = subjectName(r, ctx);
  const amount = BigInt(r.amount_micros);
  const spent = BigInt(r.spent_micros);
  const budget = `${formatMoney(amount)} monthly budget`;
  const scope =
    r.workspace_uuid === null
      ? `the organization ${ctx.organizationName}`
      : `the workspace ${name} (organization ${ctx.organizationName})`;
  const footer = `Budgets and their alerts are managed on the Billing & Usage page: ${ctx.consoleUrl}`;
  if (state === "triggered") {
    const lines = [
      `Spend in ${scope} has reached ${r.threshold}% of its ${budget}.`,
      "",
      `Spent this billing cycle (from ${day(r.cycle_start)}): ${formatMoney(spent)} of ${formatMoney(amount)}.`,
    ];
    if (r.hard_limit && reached(spent, amount, 100))
      lines.push(
        "",
        "This budget is a hard limit: new eval runs are refused until the budget is raised or the next billing cycle begins. Usage already under way is still recorded.",
      );
    lines.push("", "You receive this email once per threshold and billing cycle.", "", footer);
    return {
      subject: `Budget alert: ${name} reached ${r.threshold}% of its ${budget}`,
      text: lines.join("\n"),
    };
  }
  // Still at the threshold: the alert closed because its cycle ended (or the threshold was removed).
  const closedOnly = reached(spent, amount, r.threshold);
  return {
    subject: closedOnly
      ? `Budget alert resolved: ${name}'s ${r.threshold}% alert of the cycle from ${day(r.cycle_start)} is closed`
      : `Budget alert resolved: ${name} is back below ${r.threshold}% of its ${budget}`,
    text: [
      closedOnly
        ? `The ${r.threshold}% alert of ${scope} for the billing cycle from ${day(r.cycle_start)} is closed: a new billing cycle began or the threshold was removed.`
        : `Spend in ${scope} is back below ${r.threshold}% of its ${budget}: ${formatMoney(spent)} of ${formatMoney(amount)} this billing cycle.`,
      "",
      footer,
    ].join("\n"),
  };
}
