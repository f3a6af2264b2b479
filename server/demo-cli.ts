// The demo on the command line: its usage seeded with a progress bar, DEMO_EVENTS, and the demo
// organization's first ingestion key.
import cliProgress from "cli-progress";
import type { Product } from "./app";
import { parseDemoEvents } from "./metering/cli";
import { ConfigError } from "./platform/config";
import { DEFAULT_DEMO_EVENTS, demoIngestKey, seedDemoUsage } from "./seed";

/** An ingestion key for the demo organization, made with the demo; its token is printed once. */
export async function createDemoIngestKey(product: Product): Promise<string> {
  return demoIngestKey(product.database.db);
}

/** DEMO_EVENTS, or the default; a bad value stops the CLI with one line. */
export function demoEvents(): number {
  const r = parseDemoEvents(process.env.DEMO_EVENTS, DEFAULT_DEMO_EVENTS);
  if (!r.ok) throw new ConfigError(r.error);
  return r.value;
}

/** A progress bar on stderr when it is a terminal (nothing otherwise), with live counts. */
export function progressBar(format: string) {
  return new cliProgress.SingleBar(
    { format, stream: process.stderr, hideCursor: true, etaBuffer: 20, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
}

/** Seeds the demo's billing data and usage, telling how long the events took. */
export async function seedUsage(
  product: Product,
  events: number,
  seed: number | undefined,
  showBar: boolean,
) {
  const bar = showBar
    ? progressBar("  usage events [{bar}] {percentage}% | {value}/{total} | ETA {eta}s")
    : null;
  let started = false;
  const r = await seedDemoUsage(
    { db: product.database.db, identity: product.identity.admin, workspaces: product.api.workspaces },
    {
      events,
      ...(seed !== undefined ? { seed } : {}),
      onProgress(done, total) {
        if (!bar) return;
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
    },
  );
  if (started) bar?.stop();
  if (r.seeded && r.generated)
    console.log(
      `Demo usage: ${r.accepted.toLocaleString("en-US")} events stored (of ${r.generated.toLocaleString("en-US")} generated) in ${r.seconds.toFixed(1)} s.`,
    );
  return r;
}
