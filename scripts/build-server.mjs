// Builds the server into dist-server/ for production: one ES module with its source map (run it
// with node --enable-source-maps), packages left to node_modules, and the database migrations it
// applies at start. Development keeps running the TypeScript through tsx.
import { cpSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
// Another directory as the first argument: the server tests build their own copy there, which a
// production build in dist-server never replaces under their running processes.
const out = process.argv[2] ? resolve(process.argv[2]) : `${root}dist-server`;

rmSync(out, { recursive: true, force: true });
// A bundle rather than tsc's file-per-module output: the sources import without file extensions,
// which Node's ES module loader does not resolve.
await build({
  absWorkingDir: root,
  entryPoints: ["server/main.ts"],
  outdir: `${out}/server`,
  bundle: true,
  // main.ts imports each command's code when it runs; split, a command that goes through a running
  // server does not load the product's chunk. Chunks sit beside main.js, so the paths below hold
  // for whichever chunk a module lands in.
  splitting: true,
  chunkNames: "[name]-[hash]",
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
// platform/database.ts finds the migrations at ../db/migrations from its own module, which in the
// bundle is a file in dist-server/server/.
cpSync(`${root}server/db/migrations`, `${out}/db/migrations`, { recursive: true });
// platform/pglite-proxy.ts starts the embedded database's thread from ./pglite-worker.mjs beside
// its own module, likewise the bundle.
cpSync(`${root}server/platform/pglite-worker.mjs`, `${out}/server/pglite-worker.mjs`);
