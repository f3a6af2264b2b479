// How long an operator command takes from the shell, as README runs it (`npx tsx server/main.ts
// …`), while the embedded server runs on its data directory and the command goes through it. Floor:
// tsx running an empty module, which every command pays. With --baseline-cwd, the same commands of
// another checkout (say `git worktree add /tmp/base HEAD~1`, with node_modules linked) run in turn
// with this one's, against the same server, so that both see the same machine load. --built times
// the built server (`node dist-server/server/main.js`, after `npm run build:server`) as well.
//
// Usage: npx tsx bench/cli-start.ts [--runs 7] [--baseline-cwd DIR] [--built] [--port 4980]
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { quantile, serveProduct } from "./served-product";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    "baseline-cwd": { type: "string" },
    built: { type: "boolean", default: false },
    port: { type: "string", default: "4980" },
  },
});
const RUNS = Number(args.runs);

/** Commands that go through the running server, and the one that only prints. */
const COMMANDS: string[][] = [
  ["--help"],
  ["price", "awaiting", "--org", "acme-ai"],
  ["events", "months"],
  ["ingest-key", "list"],
];

/** How a build runs a command: `file` with `prefix` before the command's words, from `cwd`. */
type Runner = { label: string; cwd: string; file: string; prefix: string[] };

/** A checkout's commands as README runs them: its own tsx on its own server/main.ts. */
const tsxRunner = (label: string, cwd: string): Runner => ({
  label,
  cwd,
  file: join(cwd, "node_modules", ".bin", "tsx"),
  prefix: ["server/main.ts"],
});
const current = tsxRunner("current", process.cwd());
const runners: Runner[] = [
  ...(args["baseline-cwd"] ? [tsxRunner("baseline", resolve(args["baseline-cwd"]))] : []),
  current,
  ...(args.built
    ? [
        {
          label: "built",
          cwd: process.cwd(),
          file: process.execPath,
          prefix: ["--enable-source-maps", "dist-server/server/main.js"],
        },
      ]
    : []),
];

const product = serveProduct({ port: Number(args.port), events: 200, label: "cli" });
const env = {
  ...process.env,
  DATABASE_URL: "",
  DATA_DIR: product.dataDir,
  PORT: args.port,
  AUTH_PORT: String(Number(args.port) + 1),
  LOG_LEVEL: "warn",
};

/** Seconds one run of `words` took with `runner`; throws when it fails. */
function timed(runner: Runner, words: string[]): number {
  const argv = [...runner.prefix, ...words];
  const t = performance.now();
  const r = spawnSync(runner.file, argv, { cwd: runner.cwd, env, encoding: "utf8" });
  const s = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${runner.file} ${argv.join(" ")} exited ${r.status}:\n${r.stderr}`);
  return s;
}

try {
  await product.started();
  const empty = join(tmpdir(), "eval-console-empty-module.ts");
  writeFileSync(empty, "export {};\n");
  const floor: number[] = [];
  const times = COMMANDS.map(() => runners.map(() => [] as number[]));
  const load = [loadavg()[0]];
  // One warm-up round (tsx's transform cache, the page cache), then the rounds, runners in turn.
  for (let round = -1; round < RUNS; round++) {
    const f = timed({ ...current, prefix: [] }, [empty]);
    if (round >= 0) floor.push(f);
    COMMANDS.forEach((command, i) => {
      runners.forEach((runner, j) => {
        const s = timed(runner, command);
        if (round >= 0) times[i]![j]!.push(s);
      });
    });
  }
  load.push(loadavg()[0]);
  const p50 = (xs: number[]) => quantile(xs, 0.5).toFixed(2);
  console.log(
    `load average (1 min) at start ${load[0]!.toFixed(2)}, at end ${load[1]!.toFixed(2)}; p50 of ${RUNS} runs, s`,
  );
  console.log(["command", "floor (tsx, an empty module)", ...runners.map((r) => r.label)].join(" | "));
  COMMANDS.forEach((command, i) => {
    console.log([command.join(" "), p50(floor), ...times[i]!.map(p50)].join(" | "));
  });
} finally {
  product.stop();
}
