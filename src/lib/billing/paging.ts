// The records table's pager (spec §2: page size 10, starts at the first page).

export const RECORDS_PAGE_SIZE = 10;

/** Pages of a result; at least 1 so an empty result reads "Page 1 of 1". */
export function pageCount(total: number, pageSize = RECORDS_PAGE_SIZE): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / pageSize));
}

/** 'Page X of Y (N total records)'. */
export function pagerText(page: number, total: number, pageSize = RECORDS_PAGE_SIZE): string {
  const pages = pageCount(total, pageSize);
  const n = (value: number) => value.toLocaleString("en-US");
  return `Page ${n(Math.min(Math.max(1, page), pages))} of ${n(pages)} (${n(total)} total records)`;
}
