// `npm run bench`: the quick version of every benchmark, one after the other, then one screen with
// each figure, its ratio to the baseline of the same run, the target and whether it is met.
// Each benchmark still runs alone (`npx tsx bench/<name>.ts`); this only calls them at a size that
// finishes in a few minutes and reads back what they saved (bench/results.ts).
//
// Usage: npm run bench [-- --saved] [--only load,ingest] [--skip console]
//   --saved   print the table from bench/results/*.json without running anything
//   --only / --skip   a comma-separated subset of the benchmarks below
// Embedded PGlite, or PostgreSQL for every benchmark that supports it when DATABASE_URL is set.
// Each benchmark's output goes to bench/results/logs/<name>.log; the screen shows progress only.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  backendLabel,
  readResults,
  resultsDir,
  type SavedFigure,
  type SavedRun,
  type Target,
} from "./results";

type Bench = {
  name: string;
  /** The target the benchmark measures (for the table), e.g. "3 authenticated calls". */
  target: string;
  /** Script and arguments of the quick run. */
  args: string[];
  /** Why it cannot run here, or null. */
  unavailable?: () => string | null;
  timeoutMinutes?: number;
};

const BENCHES: Bench[] = [
  { name: "signin", target: "sign-in path", args: ["bench/run.ts", "2", "8"] },
  {
    name: "load",
    target: "3 authenticated calls",
    args: ["bench/load.ts", "5", "10", "--rounds", "2", "--no-rates"],
  },
  { name: "ingest", target: "4 ingestion", args: ["bench/ingest.ts", "5k", "--rounds", "1"] },
  {
    name: "dashboard",
    target: "1 dashboard data",
    args: ["bench/dashboard.ts", "10k,100k", "--budget", "5"],
    timeoutMinutes: 15,
  },
  {
    name: "console",
    target: "25 list pages beside their floor",
    // A build of this checkout made for the run (see main): ./dist may be from an older commit.
    args: ["bench/console.ts", "--quick", "--console-dir", join(resultsDir(), "console-build")],
    // Six pages and their floors, cold and warm, on a product seeded with the demo's usage.
    timeoutMinutes: 20,
  },
  {
    name: "scale",
    target: "5 more API processes",
    args: ["bench/scale.ts", "--seconds", "5"],
    // Two API processes share one database: PGlite lives inside a single process.
    unavailable: () => (process.env.DATABASE_URL ? null : "needs PostgreSQL (set DATABASE_URL)"),
  },
  {
    name: "heavy-reads",
    target: "22 pages while reports run",
    args: ["bench/heavy-reads.ts", "--events", "20000", "--probes", "100"],
  },
  {
    name: "noisy-neighbour",
    target: "23 one tenant beside a noisy one",
    args: ["bench/noisy-neighbour.ts", "--events", "20000", "--probes", "60"],
  },
  {
    name: "rerate",
    target: "24 re-rating beside ingestion and the dashboard",
    args: ["bench/rerate.ts", "--events", "20000", "--probes", "30"],
    timeoutMinutes: 15,
  },
  {
    name: "exports",
    target: "25 exports at 1M rows (peak RSS)",
    args: ["bench/exports.ts", "10k,100k"],
    timeoutMinutes: 15,
  },
];

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? "").split(",").filter(Boolean) : null;
};

function run(b: Bench, logFile: string): Promise<{ code: number | null; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    // A process group of its own: on timeout the benchmark's server processes go too (they hold
    // its output pipes open, and their scratch databases would otherwise stay).
    const child = spawn(process.execPath, ["--import", "tsx", ...b.args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: process.env,
      detached: true,
    });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const timer = setTimeout(
      () => {
        log.write(`\n[summary] stopped after ${b.timeoutMinutes ?? 10} minutes\n`);
        try {
          if (child.pid) process.kill(-child.pid, "SIGTERM");
        } catch {
          child.kill("SIGTERM");
        }
      },
      (b.timeoutMinutes ?? 10) * 60_000,
    );
    child.on("close", (code) => {
      clearTimeout(timer);
      log.end();
      resolve({ code, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const number = (n: number) =>
  Math.abs(n) >= 100
    ? Math.round(n).toLocaleString("en-US")
    : Math.abs(n) >= 10
      ? n.toFixed(1)
      : n.toFixed(2);

function targetText(t: Target | undefined, unit: string): string {
  if (!t) return "";
  const op = { "<": "<", "<=": "≤", ">": ">", ">=": "≥" }[t.op];
  return t.on === "ratio" ? `${op} ${number(t.limit)}×` : `${op} ${number(t.limit)} ${unit}`;
}

function row(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
}

/** The table: one header line per saved run (backend, age, commit, load), then its figures. */
export function summaryTable(runs: SavedRun[], since: number | null): string {
  const order = new Map(BENCHES.map((b, i) => [b.name, i]));
  const sorted = [...runs].sort(
    (a, b) => (order.get(a.bench) ?? 99) - (order.get(b.bench) ?? 99) || a.backend.localeCompare(b.backend),
  );
  const widths = [42, 16, 7, 14, 6];
  const lines = [row(["figure", "value", "ratio", "target", ""], widths)];
  let met = 0;
  let missed = 0;
  for (const r of sorted) {
    const bench = BENCHES.find((b) => b.name === r.bench);
    const stale = since !== null && Date.parse(r.finishedAt) < since ? "  (not re-run: older result)" : "";
    const load = `load ${r.load.start[0]}→${r.load.end[0]}`;
    lines.push(
      `── ${r.bench} · ${bench?.target ?? ""} · ${r.backend} · ${r.finishedAt.slice(0, 16).replace("T", " ")} · ${r.commit}${r.dirty ? "+" : ""} · ${load}${stale}`,
    );
    for (const f of r.figures as SavedFigure[]) {
      if (f.met === true) met++;
      if (f.met === false) missed++;
      lines.push(
        row(
          [
            `  ${f.label}`.slice(0, widths[0]),
            `${number(f.value)} ${f.unit}`,
            f.ratio === undefined ? "" : `${number(f.ratio)}×`,
            targetText(f.target, f.unit),
            f.met === undefined ? "" : f.met ? "met" : "MISSED",
          ],
          widths,
        ),
      );
    }
  }
  lines.push(
    `${met} met, ${missed} missed · ratios are to the baseline named in each bench's section of bench/README.md` +
      ` · commit+ = uncommitted changes`,
  );
  return lines.join("\n");
}

async function main() {
  if (argv.includes("--saved")) {
    const runs = readResults();
    console.log(runs.length ? summaryTable(runs, null) : `no saved results in ${resultsDir()}`);
    return;
  }
  const only = flag("--only");
  const skip = flag("--skip") ?? [];
  const chosen = BENCHES.filter((b) => (!only || only.includes(b.name)) && !skip.includes(b.name));
  const logs = join(resultsDir(), "logs");
  mkdirSync(logs, { recursive: true });
  const since = Date.now();
  // Emptied so that the console bench builds the console as it is now (it builds when the folder
  // has no index.html).
  rmSync(join(resultsDir(), "console-build"), { recursive: true, force: true });
  console.log(
    `Running ${chosen.length} benchmarks on ${backendLabel()} (load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}); logs in ${logs}`,
  );
  for (const b of chosen) {
    const why = b.unavailable?.();
    if (why) {
      console.log(`  ${b.name.padEnd(10)} skipped: ${why}`);
      continue;
    }
    process.stdout.write(`  ${b.name.padEnd(10)} npx tsx ${b.args.join(" ")} … `);
    const logFile = join(logs, `${b.name}.log`);
    const { code, seconds } = await run(b, logFile);
    if (code === 0) {
      console.log(`${seconds.toFixed(0)} s`);
    } else {
      console.log(`FAILED (exit ${code}) after ${seconds.toFixed(0)} s; last lines of ${logFile}:`);
      const tail = readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-4);
      for (const l of tail) console.log(`      ${l.slice(0, 150)}`);
    }
  }
  console.log();
  const names = new Set(chosen.map((b) => b.name));
  console.log(
    summaryTable(
      readResults().filter((r) => names.has(r.bench)),
      since,
    ),
  );
}

// Run as a script (npm run bench), not when a test imports the table.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
