// Query strings as Refine's router `go` writes them (its `query` object, nested filters and sorters
// in the bracket form Refine's parser reads: `filters[0][value][0]=safety`), with every value
// percent-encoded so that any text survives a reload or a shared link.

/** A key with its brackets left readable. */
const encodeKey = (key: string) => encodeURIComponent(key).replace(/%5B/gi, "[").replace(/%5D/gi, "]");

/** `value` as key=value pairs under `key`; null and undefined are left out (as no parameter). */
function pairs(key: string, value: unknown, out: string[]): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      pairs(`${key}[${i}]`, item, out);
    });
  } else if (typeof value === "object") {
    for (const [name, item] of Object.entries(value)) pairs(`${key}[${name}]`, item, out);
  } else {
    out.push(`${encodeKey(key)}=${encodeURIComponent(String(value))}`);
  }
}

/** The part of a parameter's name before any "[" (`filters` for `filters[0][field]`). */
const rootOf = (key: string) => key.split("[")[0] ?? key;

/**
 * The search string (with its "?", or "" when empty) of `query` written over `base`: `base`'s
 * parameters stay, in their order, unless `query` names them; `query`'s come after.
 */
export function searchWith(base: string, query: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [key, value] of new URLSearchParams(base)) {
    if (!Object.hasOwn(query, rootOf(key))) pairs(key, value, out);
  }
  for (const [key, value] of Object.entries(query)) pairs(key, value, out);
  return out.length > 0 ? `?${out.join("&")}` : "";
}
