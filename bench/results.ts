// Saved benchmark results: each benchmark hands its headline figures (and their ratios to the
// baseline measured in the same run) to `saveResults`, which writes bench/results/<name>.json with
// the commit, date, load average and machine facts. `npm run bench` prints its summary table from
// these files, so a figure quoted in bench/README.md can always name the run it came from.
//
// The files are raw runs of one machine, so they are not committed (bench/results/ is ignored);
// bench/README.md carries the figures worth keeping, with the commit and load from the file.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A goal from the issue, checked against a figure's value or its ratio. */
export type Target = {
  on: "value" | "ratio";
  op: "<" | "<=" | ">" | ">=";
  limit: number;
};

export type Figure = {
  /** Stable key, unique within the benchmark (e.g. "bearer-list"). */
  id: string;
  /** What was measured, as the summary table shows it (e.g. "workspace list, bearer"). */
  label: string;
  value: number;
  /** e.g. "req/s", "ms p95", "events/s". */
  unit: string;
  /** value / baseline value from the same run, where the figure has a baseline. */
  ratio?: number;
  /** What the ratio is against (e.g. "GET /healthz"). */
  baseline?: string;
  target?: Target;
};

export type SavedFigure = Figure & { met?: boolean };

export type SavedRun = {
  bench: string;
  /** "pglite" or "postgresql" (or another label the benchmark chooses). */
  backend: string;
  commit: string;
  /** True when tracked files differed from the commit while the run took place. */
  dirty: boolean;
  startedAt: string;
  finishedAt: string;
  /** 1/5/15-minute load averages at the start and at the end of the run. */
  load: { start: number[]; end: number[] };
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  /** The benchmark's size and options (events, seconds, connections, …). */
  params: Record<string, unknown>;
  figures: SavedFigure[];
  notes: string[];
};

const here = dirname(fileURLToPath(import.meta.url));

/** Where results are written and read; BENCH_RESULTS_DIR overrides (tests, other machines). */
export function resultsDir(): string {
  return process.env.BENCH_RESULTS_DIR ?? join(here, "results");
}

/** Whether a value meets a target; undefined without a target or without the figure it checks. */
export function meets(figure: Figure): boolean | undefined {
  const t = figure.target;
  if (!t) return undefined;
  const x = t.on === "ratio" ? figure.ratio : figure.value;
  if (x === undefined || !Number.isFinite(x)) return undefined;
  switch (t.op) {
    case "<":
      return x < t.limit;
    case "<=":
      return x <= t.limit;
    case ">":
      return x > t.limit;
    case ">=":
      return x >= t.limit;
  }
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, {
      cwd: here,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return "";
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * Starts a run: call it before the benchmark's work so the start load average is the machine's
 * state before this benchmark added to it. `save` writes the file and returns its path.
 */
export function startResults(bench: string, backend: string, params: Record<string, unknown> = {}) {
  const startedAt = new Date().toISOString();
  const loadStart = loadavg().map(round);
  return {
    save(figures: Figure[], notes: string[] = []): string {
      const run: SavedRun = {
        bench,
        backend,
        commit: git(["rev-parse", "--short=12", "HEAD"]) || "unknown",
        dirty: git(["status", "--porcelain", "--untracked-files=no"]) !== "",
        startedAt,
        finishedAt: new Date().toISOString(),
        load: { start: loadStart, end: loadavg().map(round) },
        machine: {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model.trim() ?? "unknown",
          memoryGiB: round(totalmem() / 2 ** 30),
          node: process.version,
          platform: `${process.platform}-${process.arch}`,
        },
        params,
        figures: figures.map((f) => ({ ...f, met: meets(f) })),
        notes,
      };
      const dir = resultsDir();
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${bench}${backend ? `.${backend}` : ""}.json`);
      writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
      console.log(`results saved: ${file}`);
      return file;
    },
  };
}

/** One-shot form of startResults(...).save(...) for a benchmark that only knows its figures at the end. */
export function saveResults(
  bench: string,
  backend: string,
  figures: Figure[],
  options: { params?: Record<string, unknown>; notes?: string[] } = {},
): string {
  return startResults(bench, backend, options.params).save(figures, options.notes);
}

/** Every saved run, sorted by benchmark name then backend. */
export function readResults(dir = resultsDir()): SavedRun[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")) as SavedRun)
    .sort((a, b) => a.bench.localeCompare(b.bench) || a.backend.localeCompare(b.backend));
}

/** The backend label a benchmark should save under: PostgreSQL when DATABASE_URL is set. */
export function backendLabel(env: NodeJS.ProcessEnv = process.env): "postgresql" | "pglite" {
  return env.DATABASE_URL ? "postgresql" : "pglite";
}
