/**
 * PostgreSQL array literals ('{"a","b",NULL}') built by hand for bulk statements: ingestion sends a
 * batch as one array per column and unpacks them with unnest(), so a batch of any size is one
 * statement with a fixed text and a fixed number of parameters. Building the literal here, rather
 * than letting each driver serialize a JS array, keeps PGlite and node-postgres identical and skips
 * their per-element type checks.
 */

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/** One element: NULL, or the text in double quotes with `"` and `\` escaped. */
const element = (v: string | null) =>
  v === null ? "NULL" : NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, "\\$&")}"` : `"${v}"`;

/** The array literal of the values (cast it in SQL: `${arrayLiteral(xs)}::text[]`). */
export function arrayLiteral(values: readonly (string | null)[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i) out += ",";
    out += element(values[i] ?? null);
  }
  return `${out}}`;
}
