// The built server for the suites that run the command line as a child process: node starts the
// bundle in about a third of the time tsx takes to compile server/main.ts's graph, paid by every
// spawned command. Built once by the server project's global setup with the production build
// script, into a directory named by a hash of everything the bundle is made from, so a run never
// uses a bundle older than its sources, and a run on unchanged sources reuses the last build.
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The built server's entry (main.js), "" when the suites run the sources through tsx. */
    serverBundle: string;
  }
}

/** What the bundle is built from: the server and contract sources, the build script, the lockfile
 * (the bundler's version). */
const INPUTS = ["server", "contract", "scripts/build-server.mjs", "package-lock.json"];
const CACHE = join("node_modules", ".cache", "eval-console-server");
// A bundle is about 6 MB and every edit of the server makes another; a run takes minutes.
const KEEP_MS = 2 * 60 * 60 * 1000;

function sourceKey(): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    const files = statSync(input).isDirectory()
      ? readdirSync(input, { recursive: true, encoding: "utf8" })
          .map((f) => join(input, f))
          .filter((f) => statSync(f).isFile())
          .sort()
      : [input];
    for (const file of files) hash.update(file).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

async function buildInto(dir: string) {
  const { spawnSync } = await import("node:child_process");
  const tmp = `${dir}.tmp-${process.pid}`;
  const build = spawnSync(process.execPath, ["scripts/build-server.mjs", tmp], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`the server build failed:\n${build.stderr}`);
  try {
    renameSync(tmp, dir);
  } catch (error) {
    // Another run on the same sources finished first: its bundle is this one.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
}

export default async function setup(project: TestProject) {
  mkdirSync(CACHE, { recursive: true });
  const key = sourceKey();
  const dir = join(CACHE, key);
  if (existsSync(join(dir, "server", "main.js"))) utimesSync(dir, new Date(), new Date());
  else await buildInto(dir);
  // Bundles of other sources unused for two hours are no run's any more.
  for (const other of readdirSync(CACHE)) {
    const path = join(CACHE, other);
    if (other !== key && Date.now() - statSync(path).mtimeMs > KEEP_MS)
      rmSync(path, { recursive: true, force: true });
  }
  project.provide("serverBundle", join(process.cwd(), dir, "server", "main.js"));
}
