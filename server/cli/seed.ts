/**
 * `seed [--events <n>] [--seed <n>]`: the demo organization and its usage. On the embedded database
 * with a server running on its data directory, the server's operator API seeds it (its progress
 * lines drive the bar); otherwise it is done on the database here. Both print the same lines.
 */
import { createDemoIngestKey, demoEvents, progressBar, saveDemoIngestKey, seedUsage } from "../demo-cli";
import type { Config } from "../platform/config";
import { DEMO_USERS, shownDemoPassword } from "../seed";
import { openProduct } from "./open-product";
import { findRunningServer, type RunningServer } from "./running-server";

type SeedArgs = { events?: number; seed?: number };

/** The API's answer (DemoSeedResult). */
type SeedAnswer = {
  created: boolean;
  reason: string | null;
  password: string | null;
  ingest_key: string | null;
  usage: { seeded: boolean; reason: string | null; generated: number; accepted: number; seconds: number };
};

/**
 * What is printed when the demo was just made: its password, shown this once when the product
 * chose it (null: it is DEMO_PASSWORD's, never printed), and where its ingestion key was written
 * (DATA_DIR/demo-ingest-key; the token itself is never printed).
 */
const organizationLines = (config: Config, password: string | null, key: string | null) => [
  `Demo organization created. Password for ${DEMO_USERS.map((u) => u.email).join(", ")}: ${password ?? "the one set in DEMO_PASSWORD (not printed)"}`,
  ...(key ? [saveDemoIngestKey(config.dataDir, key)] : []),
];

/** Runs the command and answers its exit status. */
export async function runSeed(config: Config, args: SeedArgs): Promise<number> {
  const events = args.events ?? demoEvents();
  const running = config.database.kind === "pglite" ? findRunningServer(config.database.dataDir) : null;
  if (running) return throughServer(config, running, { ...args, events });
  const product = await openProduct(config);
  try {
    const r = await product.seed(config.database.kind === "postgres" && !config.demoPassword);
    if (r.created)
      for (const line of organizationLines(config, shownDemoPassword(r), await createDemoIngestKey(product)))
        console.log(line);
    else console.log(`Demo organization: ${r.reason}.`);
    const u = await seedUsage(product, events, args.seed, true);
    if (!u.seeded) console.log(`Demo usage: nothing to do, ${u.reason}.`);
    return 0;
  } finally {
    await product.close();
  }
}

/** POST /v1/operator/demo/seed with progress lines; the answer printed as the direct path prints it. */
async function throughServer(
  config: Config,
  server: RunningServer,
  args: SeedArgs & { events: number },
): Promise<number> {
  let res: Response;
  try {
    res = await fetch(`${server.url}/v1/operator/demo/seed`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.operator_key}`,
        "content-type": "application/json",
        accept: "application/x-ndjson",
      },
      body: JSON.stringify({ events: args.events, ...(args.seed !== undefined ? { seed: args.seed } : {}) }),
    });
  } catch (err) {
    console.error(
      `The server running on this data directory does not answer at ${server.url} (${(err as Error).message}).`,
    );
    return 1;
  }
  if (!res.ok || !res.body) {
    const json = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    console.error(json?.error?.message ?? `The server answered ${res.status}.`);
    return 1;
  }
  const bar = progressBar("  usage events [{bar}] {percentage}% | {value}/{total} | ETA {eta}s");
  let started = false;
  let result: SeedAnswer | null = null;
  let failure: string | null = null;
  let rest = "";
  const decoder = new TextDecoder();
  // Node's web streams are async iterable; the DOM typings here do not say so.
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    for (let at = rest.indexOf("\n"); at >= 0; at = rest.indexOf("\n")) {
      const line = JSON.parse(rest.slice(0, at)) as {
        progress?: { done: number; total: number };
        result?: SeedAnswer;
        error?: { message: string };
      };
      rest = rest.slice(at + 1);
      if (line.progress) {
        if (!started) bar.start(line.progress.total, 0);
        started = true;
        bar.update(line.progress.done);
      }
      if (line.result) result = line.result;
      if (line.error) failure = line.error.message;
    }
  }
  if (started) bar.stop();
  if (!result) {
    console.error(failure ?? "The server ended the seed without an answer.");
    return 1;
  }
  if (result.created)
    for (const line of organizationLines(config, result.password, result.ingest_key)) console.log(line);
  else console.log(`Demo organization: ${result.reason}.`);
  const u = result.usage;
  if (u.seeded && u.generated)
    console.log(
      `Demo usage: ${u.accepted.toLocaleString("en-US")} events stored (of ${u.generated.toLocaleString("en-US")} generated) in ${u.seconds.toFixed(1)} s.`,
    );
  if (!u.seeded) console.log(`Demo usage: nothing to do, ${u.reason}.`);
  return 0;
}
