// Export to CSV: the server streams the whole filtered result; the console checks the header with
// papaparse, counts rows as they arrive for the progress indicator, and saves the file.
import Papa from "papaparse";

export const CSV_COLUMNS = [
  "Date",
  "Eval",
  "Operation",
  "Eval Type",
  "Eval ID",
  "Run ID",
  "Workspace",
  "Created By",
  "Quantity",
  "Unit Price",
  "Cost",
  "Price Adjustment Note",
] as const;

/** Whether the text starts with the spec's 12 columns in order (guards against an error page). */
export function hasExpectedHeader(csvStart: string): boolean {
  const firstLine = csvStart.split(/\r?\n/, 1)[0] ?? "";
  const parsed = Papa.parse<string[]>(firstLine, { header: false });
  const header = parsed.data[0] ?? [];
  return header.length === CSV_COLUMNS.length && CSV_COLUMNS.every((c, i) => header[i] === c);
}

/**
 * Counts record lines in streamed CSV text. Quotes may hold line breaks, so the scanner keeps
 * whether it is inside a quoted field between chunks.
 */
export function createLineCounter() {
  let inQuotes = false;
  let lines = 0;
  return {
    push(chunk: string): number {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk.charCodeAt(i);
        if (c === 34) inQuotes = !inQuotes;
        else if (c === 10 && !inQuotes) lines++;
      }
      return lines;
    },
    get lines() {
      return lines;
    },
  };
}

/** Progress of an export in percent: data lines so far (header excluded) against the expected total. */
export function exportPercent(linesSoFar: number, expected: number): number {
  if (expected <= 0) return 0;
  const rows = Math.max(0, linesSoFar - 1);
  return Math.min(99, Math.floor((rows / expected) * 100));
}

/** Rows of a CSV text as objects keyed by the header (used to read exports back). */
export function parseCsv(text: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
}
