import { existsSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import negotiate from "@fastify/accept-negotiator";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ConsoleConfig } from "../../contract/console-config";
import type { Config } from "../platform/config";
import { errorBody } from "../platform/errors";
import { type ConsolePage, consolePageReader } from "./console-page";

/** Vite's output folder for files whose names carry a hash of their content. */
const HASHED_DIR = `assets${sep}`;

/**
 * Cache-Control for a console file: a hashed file never changes under its name, so browsers and
 * proxies keep it a year without asking again; any other (index.html, the icon) is revalidated on
 * every use, by its ETag, so a new build shows at once.
 */
export function consoleCacheControl(root: string, file: string): string {
  return relative(root, file).startsWith(HASHED_DIR) ? "public, max-age=31536000, immutable" : "no-cache";
}

/**
 * Serves the built console and its run-time configuration, so one build works at any address.
 * Files go out as the build's brotli or gzip copies when the browser takes them. Unknown non-API
 * GETs get index.html (client-side routes); API paths and missing hashed files keep JSON 404s.
 */
export async function registerConsoleFiles(app: FastifyInstance, config: Config) {
  const consoleConfig: ConsoleConfig = {
    apiUrl: config.apiPublicUrl,
    authUrl: config.authPublicUrl,
    productName: "Eval Console",
  };
  app.get("/config.json", async (_req, reply) => {
    reply.header("cache-control", "no-store");
    return consoleConfig;
  });

  const root = resolve(config.consoleDir);
  const built = existsSync(resolve(root, "index.html"));
  const page = consolePageReader(root, consoleConfig);
  if (built) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: false,
      // The page goes out with the configuration in it (below), under every address.
      allowedPath: (path) => path !== "/index.html",
      // x.br or x.gz (written by the build) by Accept-Encoding, else x; always with
      // Vary: Accept-Encoding, and an ETag of the copy sent.
      preCompressed: true,
      setHeaders: (res, path) => {
        res.header("cache-control", consoleCacheControl(root, path));
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0] ?? "/";
    const isApi = path.startsWith("/v1/") || path === "/v1";
    if (req.method === "GET" && !isApi && !path.startsWith("/assets/")) {
      if (built) return sendPage(req, reply, page());
      return reply
        .status(503)
        .type("text/plain")
        .send("The console is not built. Run `npm start` (or `npm run build`) to build it.");
    }
    return reply.status(404).send(errorBody("not_found", `No route for ${req.method} ${path}`));
  });
}

/** The page in the encoding the browser takes best, revalidated by its ETag (no-cache: a new
 * build, or new configuration, shows at once). */
function sendPage(req: FastifyRequest, reply: FastifyReply, page: ConsolePage) {
  const encoding = negotiate(String(req.headers["accept-encoding"] ?? ""), ["br", "gzip"]) ?? "identity";
  // Each copy its own tag, as for the build's other files.
  const etag = encoding === "identity" ? page.etag : `${page.etag.slice(0, -1)}-${encoding}"`;
  reply.header("cache-control", "no-cache").header("vary", "Accept-Encoding").header("etag", etag);
  const known = String(req.headers["if-none-match"] ?? "").split(",");
  if (known.some((tag) => tag.trim() === etag)) return reply.status(304).send();
  if (encoding !== "identity") reply.header("content-encoding", encoding);
  return reply.type("text/html; charset=utf-8").send(page.body[encoding]);
}
