import { z } from "zod";

// The query parameters of numbered pages (page, page_size), with the same rules and the same
// error messages on every list that has them, so a client learns them once.

/** `page`: 1-based, default 1. */
export const pageNumberParam = () =>
  z.coerce
    .number({ error: "page must be a whole number." })
    .int({ error: "page must be a whole number." })
    .min(1, { error: "page must be at least 1." })
    .max(100_000, { error: "page is too large." })
    .default(1);

/** `page_size`: 1 to `max`, `defaultSize` when absent. */
export const pageSizeParam = (max: number, defaultSize: number) =>
  z.coerce
    .number({ error: "page_size must be a whole number." })
    .int({ error: "page_size must be a whole number." })
    .min(1, { error: "page_size must be at least 1." })
    .max(max, { error: `page_size must be at most ${max}.` })
    .default(defaultSize);
