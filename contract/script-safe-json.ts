/**
 * JSON to put inside a script element of a page (the server's configuration, the build's list of
 * page code): it cannot end the element it sits in, nor start a comment or a markup declaration,
 * whatever the value holds (`<` is `\u003c`; U+2028 and U+2029 are escaped for old parsers' sake).
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
