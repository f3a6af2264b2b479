import type { FastifyInstance } from "fastify";
import type { Database } from "./database";

/** /healthz: the process answers. /readyz: it can also reach its database. */
export function registerHealth(app: FastifyInstance, database: Database) {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    try {
      await database.ping();
      return { status: "ready", database: database.kind };
    } catch (err) {
      return reply.status(503).send({ status: "unavailable", reason: (err as Error).message });
    }
  });
}
