/**
 * Usage import from files: NDJSON (one event per line) or CSV (a header row of event field names),
 * streamed in batches of 10,000 through the same ingestion as the API, so a re-import only finds
 * duplicates. Memory stays at one batch whatever the file size.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import Papa from "papaparse";
import type { Db } from "../platform/database";
import { MAX_EVENTS_PER_BATCH, MalformedEvent, UsageEventInput } from "./events";
import { ingestUsage } from "./ingest";

export type ImportFormat = "csv" | "ndjson";

/** The format named by a file's extension, or null. */
export function formatOf(path: string): ImportFormat | null {
  const lower = path.toLowerCase();
  if (lower.endsWith(".csv")) return "csv";
  if (lower.endsWith(".ndjson") || lower.endsWith(".jsonl")) return "ndjson";
  return null;
}

/** One parsed line of NDJSON: the event object, or a MalformedEvent saying what is wrong. */
export function parseNdjsonLine(line: string, lineNumber: number): unknown {
  try {
    const value = JSON.parse(line);
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return new MalformedEvent(`line ${lineNumber}: each line must be one JSON object`);
    return value;
  } catch (err) {
    return new MalformedEvent(`line ${lineNumber}: not valid JSON (${(err as Error).message})`);
  }
}

/** The events of an NDJSON text, blank lines skipped (for request bodies). */
export function parseNdjson(text: string): unknown[] {
  const events: unknown[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim()) events.push(parseNdjsonLine(line, i + 1));
  }
  return events;
}

/** Splits a stream of text chunks into lines, each with its 1-based number. */
async function* lines(chunks: AsyncIterable<string | Buffer>): AsyncGenerator<{ text: string; n: number }> {
  let rest = "";
  let n = 0;
  for await (const chunk of chunks) {
    rest += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    let at = rest.indexOf("\n");
    while (at >= 0) {
      const line = rest.slice(0, at);
      rest = rest.slice(at + 1);
      n += 1;
      yield { text: line.endsWith("\r") ? line.slice(0, -1) : line, n };
      at = rest.indexOf("\n");
    }
  }
  if (rest) yield { text: rest.endsWith("\r") ? rest.slice(0, -1) : rest, n: n + 1 };
}

/**
 * CSV records (RFC 4180: quoted fields may hold commas, quotes doubled, and line breaks) read by
 * papaparse as the file streams in, each with the line it starts on; blank lines are skipped.
 */
async function* csvRecords(input: Readable): AsyncGenerator<{ fields: string[]; line: number }> {
  const rows: AsyncIterable<string[]> = input.pipe(
    Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: ",", skipEmptyLines: false }),
  );
  let line = 1;
  for await (const fields of rows) {
    const start = line;
    // A record ends with one line break, plus those inside its quoted fields.
    line += 1;
    for (const field of fields)
      for (let at = field.indexOf("\n"); at >= 0; at = field.indexOf("\n", at + 1)) line += 1;
    if (fields.length === 1 && !fields[0]?.trim()) continue;
    yield { fields, line: start };
  }
}

const EVENT_FIELDS = new Set(Object.keys(UsageEventInput.shape));
const BOOLEAN_FIELDS = new Set(["is_jailbreak", "has_ground_truth"]);

/** Header names that are not event fields; empty when the header is usable. */
function unknownColumns(header: readonly string[]): string[] {
  return header.filter((h) => !EVENT_FIELDS.has(h.trim()));
}

/** One CSV record as an event: empty cells are left out, booleans and quantities typed. */
function csvEvent(header: readonly string[], fields: readonly string[], line: number): unknown {
  if (fields.length !== header.length)
    return new MalformedEvent(`line ${line}: ${fields.length} fields where the header has ${header.length}`);
  const event: Record<string, unknown> = {};
  for (const [i, name] of header.entries()) {
    const value = fields[i] ?? "";
    if (value === "") continue;
    const key = name.trim();
    if (BOOLEAN_FIELDS.has(key)) {
      const v = value.trim().toLowerCase();
      event[key] = ["true", "1", "yes"].includes(v) ? true : ["false", "0", "no"].includes(v) ? false : value;
    } else if (key === "quantity" && /^\s*\d+\s*$/.test(value)) event[key] = Number(value);
    else event[key] = value;
  }
  return event;
}

export type ImportProgress = {
  bytes: number;
  totalBytes: number;
  events: number;
  accepted: number;
  duplicates: number;
  rejected: number;
};

export type ImportResult = ImportProgress & {
  /** The first rejections, with the file line they came from. */
  rejections: { line: number; event_id: string | null; reason: string }[];
  seconds: number;
};

export class ImportError extends Error {}

const KEEP_REJECTIONS = 20;

/**
 * Imports a file into one organization. A bad header is refused before anything is written; bad
 * events are rejected one by one, like the API does.
 */
export async function importUsageFile(
  db: Db,
  organizationUuid: string,
  path: string,
  opts: { backfill?: boolean; onProgress?: (p: ImportProgress) => void; batchSize?: number } = {},
): Promise<ImportResult> {
  const format = formatOf(path);
  if (!format) throw new ImportError(`${path}: the file must end in .csv, .ndjson or .jsonl.`);
  let totalBytes: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new ImportError(`${path} is not a file.`);
    totalBytes = s.size;
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(
      `Cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  }
  const batchSize = Math.min(opts.batchSize ?? MAX_EVENTS_PER_BATCH, MAX_EVENTS_PER_BATCH);
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 });
  const started = performance.now();
  const progress: ImportProgress = {
    bytes: 0,
    totalBytes,
    events: 0,
    accepted: 0,
    duplicates: 0,
    rejected: 0,
  };
  const rejections: ImportResult["rejections"] = [];
  let batch: unknown[] = [];
  let lineOf: number[] = [];

  const flush = async () => {
    if (!batch.length) return;
    // The operator's command line: adjustments in the file are accepted, each one audited.
    const r = await ingestUsage(db, organizationUuid, batch, {
      backfill: opts.backfill ?? false,
      adjustments: { by: { userId: null, email: null, source: "cli" } },
    });
    progress.events += batch.length;
    progress.accepted += r.accepted;
    progress.duplicates += r.duplicates;
    progress.rejected += r.rejected.length;
    for (const x of r.rejected)
      if (rejections.length < KEEP_REJECTIONS)
        rejections.push({ line: lineOf[x.index] ?? 0, event_id: x.event_id, reason: x.reason });
    progress.bytes = stream.bytesRead;
    opts.onProgress?.({ ...progress });
    batch = [];
    lineOf = [];
  };
  const add = async (event: unknown, line: number) => {
    batch.push(event);
    lineOf.push(line);
    if (batch.length >= batchSize) await flush();
  };

  try {
    if (format === "ndjson") {
      for await (const { text, n } of lines(stream)) if (text.trim()) await add(parseNdjsonLine(text, n), n);
    } else {
      let header: string[] | null = null;
      for await (const { fields, line } of csvRecords(stream)) {
        if (!header) {
          header = fields.map((f, i) => (i === 0 ? f.replace(/^\uFEFF/, "") : f).trim());
          const unknown = unknownColumns(header);
          if (unknown.length)
            throw new ImportError(
              `${path}: unknown column(s) ${unknown.join(", ")}; the header names event fields (event_id, occurred_at, operation, eval_type, …).`,
            );
          continue;
        }
        await add(csvEvent(header, fields, line), line);
      }
    }
    await flush();
  } finally {
    stream.destroy();
  }
  return { ...progress, bytes: totalBytes, rejections, seconds: (performance.now() - started) / 1000 };
}
