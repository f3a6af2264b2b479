/**
 * The limits of reservations (contract/reservations.ts), as plain values: the server's schemas
 * validate with them, and the console shows them. No zod here: the console imports these at run
 * time, and the schemas' module only as types (tests/unit/console-imports.test.ts).
 */

/**
 * A reservation whose run has sent no usage for this long (and was not finished) is released by
 * itself: an eval service that crashed never holds a budget for longer.
 */
export const RESERVATION_IDLE_MINUTES = 60;
/** At most this many lines in an estimate by events. */
export const MAX_ESTIMATE_LINES = 50;
/**
 * The largest estimate accepted, in USD (as a budget's amount): the cap of the estimate's total,
 * whether given as a cost or as events priced by the rules.
 */
export const MAX_ESTIMATE_USD = 1_000_000_000;
/** MAX_ESTIMATE_USD in micro-dollars, for exact comparisons. */
export const MAX_ESTIMATE_MICROS = BigInt(MAX_ESTIMATE_USD) * 1_000_000n;
/** How the cap reads in refusals: "1,000,000,000 USD". */
export const MAX_ESTIMATE_TEXT = `${MAX_ESTIMATE_USD.toLocaleString("en-US")} USD`;
