// The console's page (index.html) as the server sends it: with the run-time configuration written
// into it, so that the entry starts the session refresh as soon as it runs instead of after a
// round trip for /config.json (on a warm visit the only request before the session's). The build's
// index.html keeps its preload of /config.json, which the dev server and any host that sends the
// file as it is still use; the server replaces that link with the configuration itself.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { CONSOLE_CONFIG_ID, type ConsoleConfig } from "../../contract/console-config";
import { scriptSafeJson } from "../../contract/script-safe-json";

const CONFIG_PRELOAD = /<link\s[^>]*href="\/config\.json"[^>]*>/;

/** index.html with the configuration in a JSON script element (never run: the page's policy lets
 * only its own files run), in place of the /config.json preload, or before </head> without one. */
export function withConsoleConfig(html: string, config: ConsoleConfig): string {
  const element = `<script type="application/json" id="${CONSOLE_CONFIG_ID}">${scriptSafeJson(config)}</script>`;
  if (CONFIG_PRELOAD.test(html)) return html.replace(CONFIG_PRELOAD, () => element);
  const head = html.indexOf("</head>");
  return head < 0 ? element + html : `${html.slice(0, head)}${element}${html.slice(head)}`;
}

/** The page in each encoding, and its ETag. */
export type ConsolePage = { etag: string; body: { identity: Buffer; br: Buffer; gzip: Buffer } };

/**
 * index.html of `root` with `config`, compressed once per version of the file: a new build shows
 * on the next request (the file's size and modification time are checked on each), and a request
 * costs a stat, not a compression.
 */
export function consolePageReader(root: string, config: ConsoleConfig): () => ConsolePage {
  const file = join(root, "index.html");
  let cached: { version: string; page: ConsolePage } | undefined;
  return () => {
    const stat = statSync(file);
    const version = `${stat.size}:${stat.mtimeMs}`;
    if (cached?.version === version) return cached.page;
    const identity = Buffer.from(withConsoleConfig(readFileSync(file, "utf8"), config));
    const page: ConsolePage = {
      etag: `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`,
      body: {
        identity,
        br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        gzip: gzipSync(identity, { level: 9 }),
      },
    };
    cached = { version, page };
    return page;
  };
}
