// The records table's pager (spec §2: page size 10, starts at the first page).

export const RECORDS_PAGE_SIZE = 10;

/** 'Page X of Y (N total records)'; an empty result reads "Page 1 of 1". */
export function pagerText(page: number, pages: number, total: number): string {
  const last = Math.max(1, pages);
  const n = (value: number) => value.toLocaleString("en-US");
  return `Page ${n(Math.min(Math.max(1, page), last))} of ${n(last)} (${n(total)} total records)`;
}
