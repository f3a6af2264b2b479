import type { FastifyInstance } from "fastify";
import type { ErrorShape } from "./http";

// NUL and unpaired UTF-16 surrogates: PostgreSQL text cannot hold the first ("invalid byte
// sequence for encoding UTF8: 0x00", a 500 once it reaches a query) and the drivers silently turn
// the second into U+FFFD. No field of ours has a use for either.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this looks for.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path (e.g. "search", "events.0.name") of the first string in `value` that text columns cannot hold. */
function unstorableTextAt(value: unknown, path = "", depth = 0): string | null {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path || "value" : null;
  if (value === null || typeof value !== "object" || depth > 32) return null;
  for (const [k, v] of Object.entries(value)) {
    if (UNSTORABLE.test(k)) return path ? `${path}.${k}` : k;
    const found = unstorableTextAt(v, path ? `${path}.${k}` : k, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses, with a 400 in the service's error shape, any request whose path parameters, query
 * string or body carry a NUL character or an unpaired surrogate, before a route sees it. Routes
 * listed in `ownBodyCheck` (e.g. batch ingestion, which rejects such an item on its own and keeps
 * the others) have their body left to them; their path and query are still checked.
 */
export function refuseUnstorableText(
  app: FastifyInstance,
  shape: ErrorShape,
  opts: { ownBodyCheck?: readonly string[] } = {},
) {
  const own = new Set(opts.ownBodyCheck ?? []);
  app.addHook("preValidation", async (req, reply) => {
    const where = (
      [
        ["path parameter", req.params],
        ["query parameter", req.query],
        ...(own.has(req.routeOptions.url ?? "") ? [] : [["body", req.body] as const]),
      ] as const
    )
      .map(([name, value]) => {
        const at = unstorableTextAt(value);
        return at ? `${name} ${at}` : null;
      })
      .find((x) => x !== null);
    if (!where) return;
    return reply
      .status(400)
      .send(
        shape(
          "invalid_request",
          `${where}: text must not contain NUL characters or unpaired UTF-16 surrogates.`,
        ),
      );
  });
}
