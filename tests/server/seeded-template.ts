// One seeded database per test run, which every product of the server tests starts from instead
// of building its own: an image of an in-memory PGlite (restored in about 1 s, where initdb,
// the migrations and the demo's seed took 4-5 s) and, with DATABASE_URL, a PostgreSQL template
// database (copied by CREATE DATABASE … TEMPLATE, where the migrations and the seed took 1.2 s).
// Made once by the server project's global setup, in the test run's main process, with the
// configuration startProduct uses; the tests find them through vitest's inject.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import pino from "pino";
import type { TestProject } from "vitest/node";
import { buildProduct } from "../../server/app";
import { loadConfig } from "../../server/platform/config";
import { type Database, openDatabase } from "../../server/platform/database";
import { createScratchDatabase, seededConfig } from "./harness";

declare module "vitest" {
  export interface ProvidedContext {
    /** A file holding the seeded PGlite image ("" when none was made). */
    seededPgliteImage: string;
    /** The seeded PostgreSQL template database's name ("" without DATABASE_URL). */
    seededPostgresTemplate: string;
    /** SECRETS_KEY of the seeded databases: their stored secrets (the token signing key, …) are
     * sealed with it, so every product built on a copy is given it. */
    seededSecretsKey: string;
  }
}

/** Migrates `database` and seeds the demo as startProduct does; leaves it open. */
async function seed(database: Database, secretsKey: string) {
  const config = loadConfig(seededConfig({ SECRETS_KEY: secretsKey }));
  const product = await buildProduct(config, pino({ level: "silent" }), database);
  await product.seed(false);
  return product;
}

export default async function setup(project: TestProject) {
  const secretsKey = randomBytes(32).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "eval-console-seeded-"));
  const image = join(dir, "pglite.tar");
  const pglite = await openDatabase({ kind: "pglite", dataDir: null });
  const product = await seed(pglite, secretsKey);
  // drizzle's PGlite database keeps its client as $client.
  const dump = await (pglite.db as unknown as { $client: PGlite }).$client.dumpDataDir("none");
  writeFileSync(image, Buffer.from(await dump.arrayBuffer()));
  await product.close();
  project.provide("seededPgliteImage", image);

  const url = process.env.DATABASE_URL;
  const templateName = url ? `ec_template_${randomBytes(6).toString("hex")}` : "";
  let template: Awaited<ReturnType<typeof createScratchDatabase>> | null = null;
  if (url) {
    template = await createScratchDatabase(url, templateName);
    const seeded = await seed(await openDatabase({ kind: "postgres", url: template.url }), secretsKey);
    // Closed, so that no connection holds it: CREATE DATABASE copies only a template nobody uses.
    await seeded.close();
  }
  project.provide("seededPostgresTemplate", templateName);
  project.provide("seededSecretsKey", secretsKey);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    await template?.drop();
  };
}
