// Shared pieces of the metering benchmarks (bench/ingest.ts, bench/dashboard.ts): the server
// process, scratch PostgreSQL databases, COPY FROM STDIN over node-postgres, priced CSV rows made
// from the deterministic generator, percentiles and the machine description.
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type UsageEventInput, type ValidEvent, validateEvent } from "../server/metering/ingestion/events";
import { matchPriceRule, type PriceRule } from "../server/metering/pricing/rule-matching";

const here = dirname(fileURLToPath(import.meta.url));

/** "10k" → 10000, "1m" → 1000000, "2.5M" → 2500000. */
export function parseCount(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not a count (e.g. 10000, 10k, 1m)`);
  const mult = { "": 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[m[2] ?? ""] ?? 1;
  return Math.round(Number(m[1]) * mult);
}

export const short = (n: number) =>
  n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n);

export function machine(pgVersion?: string): string {
  const cpu = cpus();
  return [
    `${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"})`,
    `${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`,
    `Node ${process.version}`,
    pgVersion ?? "PGlite",
  ].join(", ");
}

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))] ?? Number.NaN;
}

export function summarize(samples: readonly number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 0.5), p95: percentile(s, 0.95), n: s.length };
}

/** A fresh database on the server of DATABASE_URL, dropped by `drop()` (never touches the given one). */
export async function scratchDatabase(url: string, prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const version = (await admin.query("show server_version")).rows[0]?.server_version as string;
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    version: `PostgreSQL ${version.split(" ")[0]}`,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A database kept by an earlier run (--keep), on the server of DATABASE_URL; never dropped here. */
export async function existingDatabase(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  const version = (await c.query("show server_version")).rows[0]?.server_version as string;
  await c.end();
  return { name, url: u.toString(), version: `PostgreSQL ${version.split(" ")[0]}`, async drop() {} };
}

type Connection = {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(msg: string): void;
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
};

/**
 * `COPY … FROM STDIN` through node-postgres without an extra package: a query object that pg's
 * client drives like any other (submit, then the CopyInResponse hands us the connection).
 */
class CopyFromStdin {
  private rows = 0;
  private error: Error | null = null;
  private copying: Promise<void> | null = null;
  constructor(
    private readonly text: string,
    private readonly source: Iterable<Buffer> | AsyncIterable<Buffer>,
    private readonly done: (err: Error | null, rows: number) => void,
  ) {}
  submit(connection: Connection) {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: Connection) {
    this.copying = (async () => {
      try {
        for await (const chunk of this.source) {
          if (this.error) return;
          connection.sendCopyFromChunk(chunk);
          if (connection.stream.writableNeedDrain)
            await new Promise<void>((r) => connection.stream.once("drain", () => r()));
        }
        connection.endCopyFrom();
      } catch (err) {
        connection.sendCopyFail((err as Error).message);
      }
    })();
  }
  handleCommandComplete(msg: { text: string }) {
    this.rows = Number(/\d+$/.exec(msg.text)?.[0] ?? 0);
  }
  handleError(err: Error) {
    this.error = err;
  }
  handleReadyForQuery() {
    void (this.copying ?? Promise.resolve()).then(() => this.done(this.error, this.rows));
  }
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
  handleCopyData() {}
}

export function copyFromStdin(
  client: pg.Client,
  text: string,
  source: Iterable<Buffer> | AsyncIterable<Buffer>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const q = new CopyFromStdin(text, source, (err, rows) => (err ? reject(err) : resolve(rows)));
    (client as unknown as { query(q: unknown): void }).query(q);
  });
}

/** `COPY … TO STDOUT` through node-postgres, each chunk handed to `onChunk`; returns the row count. */
export function copyToStdout(
  client: pg.Client,
  text: string,
  onChunk: (chunk: Buffer) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let error: Error | null = null;
    const q = {
      submit: (connection: Connection) => connection.query(text),
      handleCopyInResponse: (connection: Connection) => connection.sendCopyFail("not a COPY FROM"),
      // The chunk is a view into the parser's buffer, which is reused: copy it.
      handleCopyData: (msg: { chunk: Buffer }) => onChunk(Buffer.from(msg.chunk)),
      handleCommandComplete: (msg: { text: string }) => {
        rows = Number(/\d+$/.exec(msg.text)?.[0] ?? 0);
      },
      handleError: (err: Error) => {
        error = err;
      },
      handleReadyForQuery: () => (error ? reject(error) : resolve(rows)),
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handlePortalSuspended() {},
      handleCopyOutResponse() {},
    };
    (client as unknown as { query(q: unknown): void }).query(q);
  });
}

export type ServerInfo = {
  port: number;
  apiKey: string;
  /** The demo organization's ingestion key (POST /v1/usage/events). */
  ingestKey: string;
  orgId: string;
  workspaceUuids: string[];
  createdBy: string[];
  kind: "pglite" | "postgres";
  describe: string;
};

export type Server = {
  info: ServerInfo;
  base: string;
  sql<T = Record<string, unknown>>(text: string): Promise<T[]>;
  copyFiles(table: string, columns: readonly string[], files: readonly string[]): Promise<number>;
  /** The price rules that apply to the organization (global list included). */
  prices(): Promise<PriceRule[]>;
  profileStart(): Promise<void>;
  /** The V8 CPU profile (.cpuprofile JSON) since profileStart. */
  profileStop(): Promise<unknown>;
  /** Peak RSS since the previous call (sampled every 20 ms), and RSS now. */
  rss(): Promise<{ peak: number; now: number }>;
  stop(): Promise<void>;
};

/**
 * Starts bench/metering-server.ts in a child process (PGlite, or PostgreSQL at `databaseUrl`).
 * `root`: another checkout of this repository (e.g. a git worktree of an earlier commit) whose
 * server to run instead, for before/after comparisons in one run.
 */
export async function startServer(opts: {
  databaseUrl?: string;
  port?: number;
  root?: string;
}): Promise<Server> {
  const port = opts.port ?? 0;
  const script = opts.root
    ? join(opts.root, "bench", "metering-server.ts")
    : join(here, "metering-server.ts");
  const child: ChildProcess = fork(script, [], {
    ...(opts.root ? { cwd: opts.root } : {}),
    execArgv: ["--import", "tsx", "--max-old-space-size=4096"],
    env: {
      ...process.env,
      BENCH_PORT: String(port),
      ...(opts.databaseUrl ? { BENCH_DATABASE_URL: opts.databaseUrl } : {}),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced",
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let seq = 0;
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the server process exited with ${code}`)));
    child.on("message", (m: { ready?: ServerInfo; id?: number; result?: unknown; error?: string }) => {
      if (m.ready) return resolve(m.ready);
      const p = pending.get(m.id ?? -1);
      if (!p) return;
      pending.delete(m.id ?? -1);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
  });
  const call = <T>(msg: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, ...msg });
    });
  return {
    info,
    base: `http://127.0.0.1:${info.port}`,
    sql: (text) => call({ op: "sql", text }),
    copyFiles: (table, columns, files) => call({ op: "copy", table, columns, files }),
    rss: () => call({ op: "rss" }),
    prices: () => call({ op: "prices" }),
    profileStart: () => call({ op: "profile-start" }),
    profileStop: () => call({ op: "profile-stop" }),
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      await call({ op: "stop" }).catch(() => {});
      await exited;
    },
  };
}

/** The columns a COPY writes, in order (usage_event_uuid only when the bench fixes the uuids). */
export const EVENT_COLUMNS = [
  "organization_uuid",
  "event_id",
  "occurred_at",
  "workspace_uuid",
  "eval_uuid",
  "eval_run_uuid",
  "name",
  "operation",
  "eval_type",
  "modality",
  "is_jailbreak",
  "has_ground_truth",
  "created_by",
  "quantity",
  "rule_metric",
  "unit_price_micros",
  "cost_micros",
  "price_rule_uuid",
  "notes",
] as const;

const csvText = (v: string | null) =>
  v === null ? "" : v === "" || /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;

/** A deterministic uuid per row number, so PostgreSQL and DuckDB hold identical rows. */
export const rowUuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

/**
 * Validates and prices one generated event exactly as ingestion does (validateEvent +
 * matchPriceRule), and writes it as one CSV line of EVENT_COLUMNS (uuid first when given).
 */
export function csvLine(
  orgId: string,
  rules: readonly PriceRule[],
  raw: UsageEventInput,
  now: Date,
  uuid?: string,
): string {
  const v = validateEvent(raw, now);
  if (!v.ok) throw new Error(`generated event rejected: ${v.reason}`);
  const e: ValidEvent = v.event;
  const rule = matchPriceRule(rules, { ...e, organizationUuid: orgId });
  if (!rule && e.costMicros === null) throw new Error(`no price rule for generated event ${e.eventId}`);
  const unit = rule?.unitPriceMicros ?? 0n;
  const cost = e.costMicros ?? unit * BigInt(e.quantity);
  const fields = [
    orgId,
    csvText(e.eventId),
    e.occurredAt.toISOString(),
    e.workspaceUuid ?? "",
    csvText(e.evalUuid),
    csvText(e.evalRunUuid),
    csvText(e.name),
    csvText(e.operation),
    csvText(e.evalType),
    csvText(e.modality),
    e.isJailbreak ? "t" : "f",
    e.hasGroundTruth ? "t" : "f",
    csvText(e.createdBy),
    String(e.quantity),
    e.ruleMetric,
    String(unit),
    String(cost),
    rule?.priceRuleUuid ?? "",
    csvText(e.notes),
  ];
  return `${uuid ? `${uuid},` : ""}${fields.join(",")}\n`;
}

/** Rebuilds usage_daily for one organization from its events, the way ingestion sums them. */
export const rollupInsertSelect = (orgId: string, from?: string, to?: string) => `
  insert into usage_daily (organization_uuid, day, workspace_uuid, operation, eval_type, modality,
                           is_jailbreak, has_ground_truth, rule_metric, event_count, quantity_sum, cost_micros_sum)
  select organization_uuid, (occurred_at at time zone 'UTC')::date, workspace_uuid, operation, eval_type,
         modality, is_jailbreak, has_ground_truth, rule_metric, count(*), sum(quantity), sum(cost_micros)
    from usage_events
   where organization_uuid = '${orgId}'
     ${from ? `and occurred_at >= '${from}T00:00:00Z'` : ""} ${to ? `and occurred_at < '${to}T00:00:00Z'` : ""}
   group by 1, 2, 3, 4, 5, 6, 7, 8, 9
  on conflict on constraint usage_daily_dims_key do update
     set event_count = usage_daily.event_count + excluded.event_count,
         quantity_sum = usage_daily.quantity_sum + excluded.quantity_sum,
         cost_micros_sum = usage_daily.cost_micros_sum + excluded.cost_micros_sum`;

/**
 * What a bulk load into usage_events needs on this server's schema: the tables ingestion writes
 * (to empty them between phases), and, where usage_events is partitioned by month (migration
 * 0011), the months' partitions, which ingestion creates on write and a COPY must find in place.
 * Works on schemas before and after that migration, so a baseline checkout can be measured too.
 */
export async function prepareBulkLoad(
  sql: Server["sql"],
  from: Date,
  to: Date,
): Promise<{ tables: string[]; ensurePartitions(): Promise<void> }> {
  const candidates = [
    "usage_events",
    "usage_event_keys",
    "usage_daily",
    "usage_daily_mid",
    "usage_daily_coarse",
  ];
  const present = await sql<{ name: string }>(
    `select relname as name from pg_class where relkind in ('r', 'p') and relname in (${candidates.map((t) => `'${t}'`).join(", ")})`,
  );
  const tables = candidates.filter((t) => present.some((p) => p.name === t));
  const [fn] = await sql<{ partitioned: boolean }>(
    "select to_regproc('usage_events_ensure_month') is not null as partitioned",
  );
  return {
    tables,
    async ensurePartitions() {
      if (!fn?.partitioned) return;
      await sql(
        `select usage_events_ensure_month(m::date) from generate_series(date_trunc('month', '${from.toISOString()}'::timestamptz at time zone 'UTC'), '${to.toISOString()}'::timestamptz at time zone 'UTC', interval '1 month') as m`,
      );
    },
  };
}

/** PostgreSQL's version string via psql-less query, for the machine line. */
export function gitShort(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}
