// The product API under test, in its own process so that its memory (RSS) and event loop are not
// shared with the load generator. Started by bench/ingest.ts and bench/dashboard.ts through
// `startServer` (bench/metering-lib.ts); talks to its parent over the IPC channel:
//   → ready {port, apiKey, ingestKey, orgId, workspaceUuids, createdBy}
//   ← {id, op: "sql", text}                      run SQL on the product's own database client
//   ← {id, op: "copy", table, columns, files}   PGlite only: COPY … FROM '/dev/blob' per CSV file
//   ← {id, op: "rss"}                            peak RSS sampled since the last "rss" call
//   ← {id, op: "prices"}                         the price rules in force for the organization
//   ← {id, op: "profile-start" | "profile-stop"} a V8 CPU profile of the server in between
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import pino from "pino";
import { buildProduct } from "../server/app";
import { createIngestKey } from "../server/metering/ingestion/ingest-keys";
import { loadPriceRules, setPriceRule } from "../server/metering/pricing/prices";
import { loadBenchConfig } from "./bench-config";
import { demoAdmin } from "./demo-admin";

type Request =
  | { id: number; op: "sql"; text: string }
  | { id: number; op: "copy"; table: string; columns: string[]; files: string[] }
  | { id: number; op: "rss" }
  | { id: number; op: "prices" }
  | { id: number; op: "profile-start" }
  | { id: number; op: "profile-stop" }
  | { id: number; op: "stop" };

const PASSWORD = "bench-password";
const PRICED_OPERATIONS = ["generation", "scoring", "judging", "evaluation"];
const requestedPort = Number(process.env.BENCH_PORT ?? 0);
const databaseUrl = process.env.BENCH_DATABASE_URL;
const workspaceCount = Number(process.env.BENCH_WORKSPACES ?? 12);

// RSS is sampled every 20 ms; each "rss" request returns the peak since the previous one.
let peak = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 20);
sampler.unref();

// A kept benchmark database (bench/dashboard.ts --keep / --reuse) keeps its data directory too: the
// instance secrets stored in the database are encrypted with the key file in it.
const keptDataDir = process.env.BENCH_DATA_DIR;

async function main() {
  const dir = keptDataDir ?? mkdtempSync(join(tmpdir(), "eval-console-metering-"));
  const config = loadBenchConfig({
    dataDir: dir,
    password: PASSWORD,
    databaseUrl,
    env: { PORT: "3600", AUTH_PORT: "3601" },
  });
  const product = await buildProduct(config, pino({ level: "silent" }));
  await product.seed(false);

  const { orgId, apiKey } = await demoAdmin(product, PASSWORD);
  const { token: ingestKey } = await createIngestKey(product.database.db, {
    name: "bench",
    organizationUuid: orgId,
  });

  // More workspaces than the demo's three, so that "top 6 + No Workspace" has something to cut.
  const store = product.api.workspaces;
  const workspaceUuids: string[] = [];
  for (let i = 0; i < workspaceCount; i++) {
    const name = i < 3 ? ["Safety Research", "Red Team", "Accuracy Benchmarks"][i]! : `Bench Team ${i}`;
    const ws = (await store.findByName(orgId, name)) ?? (await store.create(orgId, name));
    workspaceUuids.push(ws.workspaceUuid);
  }
  const createdBy = ["admin@acme.test", "member@acme.test", "newcomer@acme.test"];

  // A small global price list: a default for everything, cheaper prompts, and a few specific
  // rules so that matching has to pick the most specific one.
  const db = product.database.db;
  // Rules start on distinct days so that ties between equally specific rules (decided by the newest
  // valid_from) never fall to the random rule uuid: prices are the same on every run.
  // The default price list ships with the product (built-in rules): only an operator's rules count
  // as this list having been set already (a reused database keeps them).
  if (!(await loadPriceRules(db, orgId)).some((r) => !r.builtIn)) {
    const day = (n: number) => new Date(Date.UTC(2000, 0, 1 + n));
    await setPriceRule(db, { unitPrice: "0.001", validFrom: day(0) });
    await setPriceRule(db, { ruleMetric: "prompt", unitPrice: "0.0002", validFrom: day(1) });
    for (const [i, operation] of PRICED_OPERATIONS.entries())
      await setPriceRule(db, { operation, unitPrice: `0.00${i + 2}`, validFrom: day(2 + i) });
    await setPriceRule(db, {
      organizationUuid: orgId,
      modality: "image",
      unitPrice: "0.004",
      validFrom: day(9),
    });
  }

  await product.api.app.listen({ host: "127.0.0.1", port: requestedPort });
  const address = product.api.app.server.address();
  const port = typeof address === "object" && address ? address.port : requestedPort;

  const client = (product.database.db as unknown as { $client: PGlite | pg.Pool }).$client;
  const kind = product.database.kind;

  async function sqlRows(text: string): Promise<unknown[]> {
    if (kind === "pglite") {
      const results = await (client as PGlite).exec(text);
      return results[results.length - 1]?.rows ?? [];
    }
    const res = await (client as pg.Pool).query(text);
    const last = Array.isArray(res) ? res[res.length - 1] : res;
    return (last as pg.QueryResult).rows ?? [];
  }

  const session = new Session();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );

  async function handle(req: Request): Promise<unknown> {
    switch (req.op) {
      case "sql":
        return sqlRows(req.text);
      case "copy": {
        if (kind !== "pglite")
          throw new Error("copy over IPC is for PGlite; PostgreSQL copies from the bench");
        const db = client as PGlite;
        let rows = 0;
        for (const file of req.files) {
          // Read into memory: a file-backed Blob cannot be sent to the database's worker thread.
          const blob = new Blob([await readFile(file)]);
          const res = await db.query(
            `copy ${req.table} (${req.columns.join(", ")}) from '/dev/blob' with (format csv)`,
            [],
            { blob },
          );
          rows += res.affectedRows ?? 0;
        }
        return rows;
      }
      case "profile-start":
        session.connect();
        await post("Profiler.enable");
        await post("Profiler.setSamplingInterval", { interval: 500 });
        await post("Profiler.start");
        return null;
      case "profile-stop": {
        const { profile } = (await post("Profiler.stop")) as { profile: unknown };
        session.disconnect();
        return profile;
      }
      case "prices":
        return loadPriceRules(product.database.db, orgId as string);
      case "rss": {
        const now = process.memoryUsage.rss();
        const result = { peak: Math.max(peak, now), now };
        peak = now;
        return result;
      }
      case "stop":
        setImmediate(async () => {
          await product.close();
          if (!keptDataDir) rmSync(dir, { recursive: true, force: true });
          process.exit(0);
        });
        return null;
    }
  }

  process.on("message", (req: Request) => {
    handle(req).then(
      (result) => process.send?.({ id: req.id, result }),
      (err: Error) => process.send?.({ id: req.id, error: err.stack ?? String(err) }),
    );
  });
  process.send?.({
    ready: {
      port,
      apiKey,
      ingestKey,
      orgId,
      workspaceUuids,
      createdBy,
      kind,
      describe: product.database.describe,
    },
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
