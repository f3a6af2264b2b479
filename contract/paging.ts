import { z } from "zod";

// The query parameters of numbered pages (page, page_size), with the same rules and the same
// error messages on every list that has them, so a client learns them once.

/** A whole-number query parameter from 1 to `max`, refused past it in `tooLarge`'s words. */
export const wholeNumberParam = (name: string, max: number, tooLarge: string) =>
  z.coerce
    .number({ error: `${name} must be a whole number.` })
    .int({ error: `${name} must be a whole number.` })
    .min(1, { error: `${name} must be at least 1.` })
    .max(max, { error: tooLarge });

/** `page`: 1-based, default 1. */
export const pageNumberParam = () => wholeNumberParam("page", 100_000, "page is too large.").default(1);

/** `page_size`: 1 to `max`, `defaultSize` when absent. */
export const pageSizeParam = (max: number, defaultSize: number) =>
  wholeNumberParam("page_size", max, `page_size must be at most ${max}.`).default(defaultSize);
