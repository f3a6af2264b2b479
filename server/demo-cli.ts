// The demo on the command line: its usage seeded with a progress bar, DEMO_EVENTS, and the demo
// organization's first ingestion key (kept in an owner-only file, never printed).
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import cliProgress from "cli-progress";
import type { Product } from "./app";
import { parseDemoEvents } from "./metering/shared/cli-args";
import { ConfigError } from "./platform/config";
import { DEFAULT_DEMO_EVENTS, DEMO_ORG, demoIngestKey, seedDemoUsage } from "./seed";

/** An ingestion key for the demo organization, made with the demo; its token goes to a file only. */
export async function createDemoIngestKey(product: Product): Promise<string> {
  return demoIngestKey(product.database.db);
}

/** Where the demo's ingestion key is kept: DATA_DIR/demo-ingest-key. */
export const DEMO_KEY_FILE = "demo-ingest-key";

/**
 * Writes the demo's ingestion key to `<dataDir>/demo-ingest-key` (mode 0600, the token and a
 * newline): under a private name first, then renamed over any earlier one, so a reader sees the
 * old file or the whole new one. Answers its path.
 */
export function writeDemoIngestKey(dataDir: string, token: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, DEMO_KEY_FILE);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(temp, 0o600); // the umask may have narrowed it further, never widened; be exact
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return path;
}

/**
 * Keeps a new demo's ingestion key in DATA_DIR (on PostgreSQL too: the directory that holds
 * secrets.key when SECRETS_KEY is unset) and answers the line that says where it is. The token is
 * never printed: the output is a log stream, and no secret goes there.
 */
export function saveDemoIngestKey(dataDir: string, token: string): string {
  try {
    const path = writeDemoIngestKey(dataDir, token);
    return `Demo ingestion key for ${DEMO_ORG.name}: in ${path} (owner-only; \`ingest-key create\` makes more)`;
  } catch (err) {
    return `Demo ingestion key for ${DEMO_ORG.name}: not kept, ${join(dataDir, DEMO_KEY_FILE)} cannot be written (${(err as Error).message}); \`ingest-key create\` makes one`;
  }
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
