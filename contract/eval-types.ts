/**
 * Eval types: every usage event carries its own (raw) eval type; the product counts, ranks, filters
 * and shows it under its group. accuracy and hallucination are one group, "accuracy", shown as
 * Accuracy. The server groups (summary, series, filter options, the records' filter and sort), so
 * every view agrees; a group is shown by its label.
 */

/** The named eval types: raw value (lower-case) → its group. Any other value is its own group. */
export const NAMED_EVAL_TYPES: ReadonlyMap<string, string> = new Map([
  ["safety", "safety"],
  ["image_safety", "image_safety"],
  ["jailbreak", "jailbreak"],
  ["accuracy", "accuracy"],
  ["hallucination", "accuracy"],
]);

const GROUP_LABELS: ReadonlyMap<string, string> = new Map([
  ["safety", "Safety"],
  ["image_safety", "Image Safety"],
  ["jailbreak", "Jailbreak"],
  ["accuracy", "Accuracy"],
]);

/**
 * Upper-case ASCII letters only: the database folds case the same way (translate() over A-Z), so a
 * group is the same whether computed here or in SQL, whatever the collation.
 */
export const ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz";
const asciiLower = (value: string) => value.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The group of a raw eval type (or of a group, which is its own): "Hallucination" → "accuracy". */
export function evalTypeGroup(evalType: string): string {
  return NAMED_EVAL_TYPES.get(asciiLower(evalType)) ?? evalType;
}

/** "image_safety" → "Image Safety"; "" → "". */
export function capitalizeWords(value: string | null | undefined): string {
  return (value ?? "")
    .split(/[_\s]+/)
    .filter((word) => word !== "")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

/**
 * The label of an eval type's group: safety → Safety, image_safety → Image Safety, jailbreak →
 * Jailbreak, accuracy and hallucination → Accuracy, any other in capitalised words.
 */
export function evalTypeLabel(evalType: string): string {
  const group = evalTypeGroup(evalType);
  return GROUP_LABELS.get(group) ?? capitalizeWords(group);
}
