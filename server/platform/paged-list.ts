// The listings an administrator pages through (organizations, webhook deliveries, API keys,
// members, invitations) answer one page of rows and how many rows match in all; both are read at
// once, here, so every listing pages the same way.
import type { PgSelect } from "drizzle-orm/pg-core";

/** Which rows a page holds: `limit` of them, after the first `offset`. */
export type PageWindow = { limit: number; offset: number };

/** The window of page `page` (counted from 1) of `pageSize` rows. */
export const pageWindow = (page: number, pageSize: number): PageWindow => ({
  limit: pageSize,
  offset: (page - 1) * pageSize,
});

/**
 * The window's rows of `query` (the listing's filter and order, made `$dynamic()`), and `total`,
 * the count of every row it matches (e.g. `db.$count(table, where)`).
 */
export async function readPage<Q extends PgSelect>(
  query: Q,
  total: Promise<number>,
  window: PageWindow,
): Promise<{ rows: Awaited<Q>; total: number }> {
  const [rows, n] = await Promise.all([query.limit(window.limit).offset(window.offset), total]);
  return { rows: rows as Awaited<Q>, total: Number(n) };
}
