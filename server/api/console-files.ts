import { existsSync } from "node:fs";
import { resolve } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import type { Config } from "../platform/config";
import { errorBody } from "../platform/errors";

/**
 * Serves the built console and its run-time configuration, so one build works at any address.
 * Unknown non-API GETs get index.html (client-side routes); API paths keep JSON 404s.
 */
export async function registerConsoleFiles(app: FastifyInstance, config: Config) {
  app.get("/config.json", async (_req, reply) => {
    reply.header("cache-control", "no-store");
    return { apiUrl: config.apiPublicUrl, authUrl: config.authPublicUrl, productName: "Eval Console" };
  });

  const root = resolve(config.consoleDir);
  const built = existsSync(resolve(root, "index.html"));
  if (built) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: false,
      setHeaders: (res, path) => {
        // Hashed assets never change; index.html must always be revalidated.
        res.header(
          "cache-control",
          path.includes("/assets/") ? "public, max-age=31536000, immutable" : "no-cache",
        );
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0] ?? "/";
    const isApi = path.startsWith("/v1/") || path === "/v1";
    if (req.method === "GET" && !isApi && !path.startsWith("/assets/")) {
      if (built) return reply.header("cache-control", "no-cache").sendFile("index.html");
      return reply
        .status(503)
        .type("text/plain")
        .send("The console is not built. Run `npm start` (or `npm run build`) to build it.");
    }
    return reply.status(404).send(errorBody("not_found", `No route for ${req.method} ${path}`));
  });
}
