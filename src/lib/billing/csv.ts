// Export to CSV (and with pricing details): the server streams the whole filtered result; the
// console checks the header with papaparse, counts rows as they arrive for the progress indicator,
// and saves the file.
import Papa from "papaparse";
import { type CsvDetails, csvHeaders, MAX_EXPORT_ROWS } from "../../../contract/usage-csv";

/**
 * Whether the text starts with the export's columns in order: the spec's 12, then the details
 * asked for, nothing else (guards against an error page or a file of other columns).
 */
export function hasExpectedHeader(csvStart: string, details: CsvDetails | null = null): boolean {
  const firstLine = csvStart.split(/\r?\n/, 1)[0] ?? "";
  const parsed = Papa.parse<string[]>(firstLine, { header: false });
  const header = parsed.data[0] ?? [];
  const expected = csvHeaders(details);
  return header.length === expected.length && expected.every((c, i) => header[i] === c);
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

/** Why an export of `expected` records is not started, or null when it can be. */
export function exportRefusal(expected: number): string | null {
  if (expected <= MAX_EXPORT_ROWS) return null;
  return (
    `An export holds at most ${MAX_EXPORT_ROWS.toLocaleString("en-US")} records; these filters match ` +
    `${expected.toLocaleString("en-US")}. Narrow the filters or export a shorter billing cycle.`
  );
}

/** The stream of an export ended before the server finished it (a broken transfer). */
export class ExportInterrupted extends Error {
  constructor() {
    super("The export was interrupted before it finished; no file was saved. Please try again.");
    this.name = "ExportInterrupted";
  }
}

export class ExportCancelled extends Error {
  constructor() {
    super("The export was cancelled.");
    this.name = "ExportCancelled";
  }
}

/**
 * Reads a streamed export to its end. The server breaks the transfer when an export fails part
 * way (the response ends without its final chunk), which a reader sees as a failed read: that is
 * an ExportInterrupted, never a shorter file. Checks the header, reports the text as it arrives.
 */
export async function readCsvExport(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> },
  opts: { onText?: (text: string) => void; cancelled?: () => boolean; details?: CsvDetails | null } = {},
): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  const decoder = new TextDecoder();
  let head = "";
  for (;;) {
    let chunk: { done: boolean; value?: Uint8Array };
    try {
      chunk = await reader.read();
    } catch {
      throw new ExportInterrupted();
    }
    if (chunk.done) break;
    if (opts.cancelled?.()) {
      await reader.cancel().catch(() => {});
      throw new ExportCancelled();
    }
    if (!chunk.value) continue;
    parts.push(chunk.value);
    const text = decoder.decode(chunk.value, { stream: true });
    if (head.length < 2048) head += text;
    opts.onText?.(text);
  }
  if (!hasExpectedHeader(head, opts.details ?? null))
    throw new Error("The export did not return the expected CSV columns.");
  return parts;
}
