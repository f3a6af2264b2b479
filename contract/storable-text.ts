/**
 * Text PostgreSQL can store and JSON can carry: no NUL character (text columns refuse it) and no
 * lone UTF-16 surrogate (not a character at all). Shared by every schema that takes free text.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const isStorableText = (v: string) => !v.includes("\u0000") && !LONE_SURROGATE.test(v);
