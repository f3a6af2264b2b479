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
/** The largest estimate accepted, in USD (as a budget's amount). */
export const MAX_ESTIMATE_USD = 1_000_000_000;
