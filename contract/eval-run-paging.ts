// The Eval Runs list's paging, without the schemas: the console's entry reads it (its early read of
// the list) and must not pull in zod.

/** The list's page size when none is asked for, and the largest one it answers. */
export const EVAL_RUN_PAGE_SIZE = 10;
export const MAX_EVAL_RUN_PAGE_SIZE = 100;
