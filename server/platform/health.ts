import type { FastifyInstance } from "fastify";
import { type Database, databaseErrorCode } from "./database";

/** /healthz: the process answers. /readyz: it can also reach its database. */
export function registerHealth(app: FastifyInstance, database: Database) {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (req, reply) => {
    try {
      await database.ping();
      return { status: "ready", database: database.kind };
    } catch (err) {
      // The driver's message may name hosts, users or databases: logged, never sent.
      req.log.warn({ err }, "readiness check failed");
      reply.header("retry-after", "1");
      return reply.status(503).send({
        status: "unavailable",
        reason: "The database is not reachable.",
        code: databaseErrorCode(err) ?? "unknown",
      });
    }
  });
}
