// Display labels of the billing page (spec §2): underscores become capitalised words, missing
// values show "-". Eval type labels are the contract's (contract/eval-types.ts).
import { capitalizeWords } from "../../../contract/eval-types";

export const MISSING = "-";

/** A filter option or operation label; "-" when there is nothing to show. */
export function optionLabel(value: string | null | undefined): string {
  return capitalizeWords(value) || MISSING;
}

/** Operation names with underscores turned into spaces and capitalised: "eval_generation" → "Eval Generation". */
export const operationLabel = optionLabel;

/** A table cell: the value, or "-" when it is missing or blank. */
export function orDash(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  const text = String(value).trim();
  return text === "" ? MISSING : text;
}

const isPromptMetric = (metric: string | null | undefined) => (metric ?? "").toLowerCase() === "prompt";

/**
 * Usage Summary tile label: Evals Generated / Evals Scored for the eval metric, Prompts Generated /
 * Responses Scored for the prompt metric; any other operation keeps its own label.
 */
export function operationTileLabel(operation: string, metric: string | null | undefined): string {
  const op = operation.toLowerCase();
  if (op === "generation") return isPromptMetric(metric) ? "Prompts Generated" : "Evals Generated";
  if (op === "scoring") return isPromptMetric(metric) ? "Responses Scored" : "Evals Scored";
  return operationLabel(operation);
}

/** "1 eval", "12 evals"; for the prompt metric "N prompts" (generation) or "N responses" (scoring). */
export function countWithUnit(count: number, operation: string, metric: string | null | undefined): string {
  const n = count.toLocaleString("en-US");
  if (isPromptMetric(metric)) {
    const noun = operation.toLowerCase() === "scoring" ? "response" : "prompt";
    return `${n} ${count === 1 ? noun : `${noun}s`}`;
  }
  return `${n} ${count === 1 ? "eval" : "evals"}`;
}

/** "1 event", "1,204 events". */
export function eventsText(events: number): string {
  return `${events.toLocaleString("en-US")} ${events === 1 ? "event" : "events"}`;
}

/** The name of a workspace group in the totals strip: "default" is shown as Other. */
export function groupLabel(groupName: string): string {
  return groupName === "default" ? "Other" : groupName;
}
