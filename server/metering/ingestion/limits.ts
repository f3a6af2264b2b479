/**
 * The bounds of usage ingestion, in one place: the API, the CLI import, the OpenAPI document and
 * the README quote these. They keep every stored sum far from the range of a PostgreSQL bigint
 * (micro-dollars and quantities), and every stored date within a billing cycle of the organization.
 */

/** The most events one ingestion call takes. */
export const MAX_EVENTS_PER_BATCH = 10_000;

/** The largest ingestion request body (JSON or NDJSON): 10,000 events of about 1 KiB, with room. */
export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;

/** Events may be stamped at most this far ahead of the server clock (clock skew). */
export const MAX_FUTURE_MS = 5 * 60 * 1000;

/**
 * The earliest occurred_at of an organization that has no billing cycle yet; once it has one,
 * events before the start of its first cycle are rejected.
 */
export const EARLIEST_OCCURRED_AT = new Date("2000-01-01T00:00:00Z");

const DAY_MS = 24 * 60 * 60 * 1000;

/** Midnight UTC `days` days before `now`'s day. */
const daysBefore = (now: Date, days: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - days * DAY_MS);

/**
 * The oldest occurred_at ingestion accepts at `now` under a horizon of `maxAgeDays` (0: none, every
 * date from the organization's first billing cycle): midnight UTC, `maxAgeDays` days before today.
 */
export function oldestAccepted(now: Date, maxAgeDays: number): Date | null {
  return maxAgeDays > 0 ? daysBefore(now, maxAgeDays) : null;
}

/**
 * Idempotency keys stored before this time may be deleted at `now` (null: none may). One day
 * older than oldestAccepted, so that a batch validated just before midnight and committed after a
 * retention run still finds the keys of every event it accepted.
 */
export function keysExpireBefore(now: Date, maxAgeDays: number): Date | null {
  return maxAgeDays > 0 ? daysBefore(now, maxAgeDays + 1) : null;
}

/** quantity of one event: a whole number from 1 to this. */
export const MAX_QUANTITY = 1_000_000;

/**
 * The largest cost of one event in micro-dollars, either sign: $1,000,000.00. It bounds explicit
 * adjustments (operators only) and priced events (quantity × unit price) alike; 9.2 million such
 * events on one day would still not overflow a bigint sum.
 */
export const MAX_EVENT_COST_MICROS = 1_000_000n * 1_000_000n;

/** The same limit as text, for messages and documents. */
export const MAX_EVENT_COST_USD = "1,000,000.00";
