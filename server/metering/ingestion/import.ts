/**
 * Usage import from files: NDJSON (one event per line) or CSV (a header row of event field names),
 * streamed in batches of 10,000 through the same ingestion as the API, so a re-import only finds
 * duplicates. Memory stays at one batch whatever the file size.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { pipeline, Readable } from "node:stream";
import Papa from "papaparse";
import { type Actor, CLI_ACTOR, writeAudit } from "../../platform/audit";
import type { Db } from "../../platform/database";
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

/**
 * The longest NDJSON line or CSV record read (in characters): an event is about 1 KiB, so a longer
 * one is a broken input (a missing line break, an unclosed quote), and stopping there keeps memory
 * bounded whatever is sent.
 */
export const MAX_RECORD_CHARS = 1 << 20;

type Line = { text: string; n: number; tooLong: boolean };

/**
 * Splits a stream of text chunks into lines, each with its 1-based number. A line longer than
 * MAX_RECORD_CHARS is not kept: it comes out once, marked tooLong, and the rest of it is skipped.
 */
async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<Line> {
  let rest = "";
  let n = 0;
  let skipping = false;
  for await (const chunk of chunks) {
    rest += chunk;
    let at = rest.indexOf("\n");
    while (at >= 0) {
      const line = rest.slice(0, at);
      rest = rest.slice(at + 1);
      n += 1;
      if (skipping) skipping = false;
      else if (line.length > MAX_RECORD_CHARS) yield { text: "", n, tooLong: true };
      else yield { text: line.endsWith("\r") ? line.slice(0, -1) : line, n, tooLong: false };
      at = rest.indexOf("\n");
    }
    if (rest.length > MAX_RECORD_CHARS) {
      if (!skipping) yield { text: "", n: n + 1, tooLong: true };
      skipping = true;
      rest = "";
    }
  }
  if (rest && !skipping)
    yield { text: rest.endsWith("\r") ? rest.slice(0, -1) : rest, n: n + 1, tooLong: false };
}

/**
 * CSV records (RFC 4180: quoted fields may hold commas, quotes doubled, and line breaks) read by
 * papaparse as the text streams in, each with the line it starts on; blank lines are skipped. A
 * record still open after MAX_RECORD_CHARS (an unclosed quote swallowing the rest) stops the
 * import: papaparse would otherwise hold all that follows in memory.
 */
async function* csvRecords(input: AsyncIterable<string>): AsyncGenerator<{ fields: string[]; line: number }> {
  let sinceRecord = 0;
  let line = 1;
  // Fed in slices of 64 Ki characters, so that the records of a big chunk are read before the
  // count runs on; papaparse may still be a few slices behind, hence the margin over one record.
  async function* guarded() {
    for await (const chunk of input)
      for (let at = 0; at < chunk.length; at += 1 << 16) {
        const slice = chunk.slice(at, at + (1 << 16));
        sinceRecord += slice.length;
        if (sinceRecord > 2 * MAX_RECORD_CHARS)
          throw new ImportError(
            `A CSV record runs past ${MAX_RECORD_CHARS} characters (an unclosed quote?); the import stopped before line ${line}.`,
          );
        yield slice;
      }
  }
  const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: ",", skipEmptyLines: false });
  // pipeline, not pipe: a failing input (a read error, the guard above) ends the parse with it.
  const rows: AsyncIterable<string[]> = pipeline(Readable.from(guarded()), parser, () => {});
  for await (const fields of rows) {
    sinceRecord = 0;
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
  /** Of the accepted events, those no price rule matches yet (awaiting pricing). */
  awaitingPricing: number;
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

export type ImportOptions = {
  backfill?: boolean;
  onProgress?: (p: ImportProgress) => void;
  batchSize?: number;
  /** Who imports: the audit row names them, and so does each credit or charge's (default: the CLI). */
  by?: Actor;
  /** How many rejections the result lists (default 20). */
  keepRejections?: number;
  /** USAGE_MAX_AGE_DAYS: older events are rejected (ingest.ts; default 0, no horizon). */
  maxAgeDays?: number;
};

/**
 * Imports a file into one organization. A bad header is refused before anything is written; bad
 * events are rejected one by one, like the API does.
 */
export async function importUsageFile(
  db: Db,
  organizationUuid: string,
  path: string,
  opts: ImportOptions = {},
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
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 });
  try {
    return await importUsage(db, organizationUuid, stream, {
      ...opts,
      format,
      source: path,
      totalBytes,
      bytesRead: () => stream.bytesRead,
    });
  } finally {
    stream.destroy();
  }
}

/**
 * Imports a stream of UTF-8 text (a file, a request body) in the given format, one batch at a time:
 * memory stays at one batch and one record whatever the size. Ends with one usage.imported audit
 * row holding the counts, also when the input fails part way (what was stored stays stored, and
 * sending it all again finds those events duplicates).
 */
export async function importUsage(
  db: Db,
  organizationUuid: string,
  input: AsyncIterable<string>,
  opts: ImportOptions & {
    format: ImportFormat;
    /** Names the input in messages ("usage.csv: unknown column(s) …"). */
    source: string;
    totalBytes: number;
    bytesRead: () => number;
  },
): Promise<ImportResult> {
  const batchSize = Math.min(opts.batchSize ?? MAX_EVENTS_PER_BATCH, MAX_EVENTS_PER_BATCH);
  const keep = opts.keepRejections ?? KEEP_REJECTIONS;
  const by = opts.by ?? CLI_ACTOR;
  const started = performance.now();
  const progress: ImportProgress = {
    bytes: 0,
    totalBytes: opts.totalBytes,
    events: 0,
    accepted: 0,
    awaitingPricing: 0,
    duplicates: 0,
    rejected: 0,
  };
  const rejections: ImportResult["rejections"] = [];
  let batch: unknown[] = [];
  let lineOf: number[] = [];

  const flush = async () => {
    if (!batch.length) return;
    // An operator's import: adjustments in it are accepted, each one audited.
    const r = await ingestUsage(db, organizationUuid, batch, {
      backfill: opts.backfill ?? false,
      adjustments: { by },
      maxAgeDays: opts.maxAgeDays ?? 0,
    });
    progress.events += batch.length;
    progress.accepted += r.accepted;
    progress.awaitingPricing += r.awaiting_pricing;
    progress.duplicates += r.duplicates;
    progress.rejected += r.rejected.length;
    for (const x of r.rejected)
      if (rejections.length < keep)
        rejections.push({ line: lineOf[x.index] ?? 0, event_id: x.event_id, reason: x.reason });
    progress.bytes = opts.bytesRead();
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
    if (opts.format === "ndjson") {
      for await (const { text, n, tooLong } of lines(input)) {
        if (tooLong)
          await add(new MalformedEvent(`line ${n}: longer than ${MAX_RECORD_CHARS} characters`), n);
        else if (text.trim()) await add(parseNdjsonLine(text, n), n);
      }
    } else {
      let header: string[] | null = null;
      for await (const { fields, line } of csvRecords(input)) {
        if (!header) {
          header = fields.map((f, i) => (i === 0 ? f.replace(/^\uFEFF/, "") : f).trim());
          const unknown = unknownColumns(header);
          if (unknown.length)
            throw new ImportError(
              `${opts.source}: unknown column(s) ${unknown.join(", ")}; the header names event fields (event_id, occurred_at, operation, eval_type, …).`,
            );
          continue;
        }
        await add(csvEvent(header, fields, line), line);
      }
    }
    await flush();
  } catch (err) {
    // What was stored before the failure is audited too; the failure itself is what the caller sees.
    if (progress.events)
      await auditImport(db, organizationUuid, by, opts, progress, false).catch(() => undefined);
    throw err;
  }
  await auditImport(db, organizationUuid, by, opts, progress, true);
  return {
    ...progress,
    bytes: opts.totalBytes || opts.bytesRead(),
    rejections,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The import's one audit row: where from, and what became of its events. */
async function auditImport(
  db: Db,
  organizationUuid: string,
  by: Actor,
  opts: { format: ImportFormat; backfill?: boolean; bytesRead: () => number },
  p: ImportProgress,
  completed: boolean,
) {
  await writeAudit(db, {
    organizationUuid,
    actor: by,
    action: "usage.imported",
    target: { type: "organization", id: organizationUuid },
    after: {
      format: opts.format,
      backfill: opts.backfill ?? false,
      bytes: opts.bytesRead(),
      events: p.events,
      accepted: p.accepted,
      awaiting_pricing: p.awaitingPricing,
      duplicates: p.duplicates,
      rejected: p.rejected,
      completed,
    },
  });
}
