// The served product for benchmarks that measure it from outside, as `npm start` runs it: its own
// process on a fresh data directory (or DATABASE_URL's PostgreSQL), the demo seeded, and the calls
// a benchmark needs to sign in, create a second organization and time requests. Shared by
// heavy-reads.ts and noisy-neighbour.ts.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

export type ServedProduct = {
  api: string;
  auth: string;
  /** The demo users' password on this server. */
  password: string;
  dataDir: string;
  /** The server process's id (to read its memory from /proc). */
  pid: number | undefined;
  /** Everything the server printed on stdout so far. */
  out: () => string;
  /** Resolves once the server prints that it runs (throws with its output if it exits first). */
  started: (ms?: number) => Promise<void>;
  /** Signs a demo user in on the hosted form; their access token. */
  accessToken: (email: string) => Promise<string>;
  /** A new organization made by `email` (as any signed-in user can), and its admin's token. */
  newOrganization: (email: string, name: string) => Promise<{ orgId: string; token: string }>;
  /** A new ingestion key for `org` (`ingest-key create`, as an operator runs it): its token. */
  ingestKey: (org: string, name: string) => string;
  stop: () => void;
};

/**
 * Starts `server/main.ts serve` on `port` (API) and `port + 1` (identity). `postgres` uses
 * DATABASE_URL; otherwise the embedded database in a fresh directory. `env` adds settings.
 */
export function serveProduct(opts: {
  port: number;
  events: number;
  postgres?: boolean;
  env?: Record<string, string>;
  label: string;
  /** Another checkout of the product to serve (a baseline's worktree); this one by default. */
  cwd?: string;
}): ServedProduct {
  const api = `http://127.0.0.1:${opts.port}`;
  const auth = `http://127.0.0.1:${opts.port + 1}`;
  const password = `${opts.label}-bench-password`;
  const dataDir = mkdtempSync(join(tmpdir(), `eval-console-bench-${opts.label}-`));
  const env = {
    DATABASE_URL: opts.postgres ? (process.env.DATABASE_URL ?? "") : "",
    DATABASE_READ_URL: "",
    DATA_DIR: dataDir,
    PORT: String(opts.port),
    AUTH_PORT: String(opts.port + 1),
    PUBLIC_URL: api,
    AUTH_PUBLIC_URL: auth,
    DEMO_PASSWORD: password,
    DEMO_EVENTS: String(opts.events),
    SEED_DEMO: "always",
    LOG_LEVEL: "warn",
    ...opts.env,
  };
  const server = spawn(process.execPath, ["--import", "tsx", "server/main.ts", "serve"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  let out = "";
  server.stdout.on("data", (d) => (out += d));
  process.on("exit", () => server.kill("SIGKILL"));

  async function signInCookie(email: string): Promise<string> {
    const login = await fetch(`${auth}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: auth },
      body: new URLSearchParams({ email, password }).toString(),
    });
    return login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  }

  async function token(cookie: string, orgId?: string): Promise<string> {
    const q = orgId ? `?active_org_id=${orgId}` : "";
    const res = await fetch(`${auth}/api/v1/refresh_token${q}`, { headers: { cookie } });
    if (!res.ok) throw new Error(`refresh_token: ${res.status}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  return {
    api,
    auth,
    password,
    dataDir,
    pid: server.pid,
    out: () => out,
    async started(ms = 600_000) {
      const end = Date.now() + ms;
      while (!out.includes("Eval Console is running")) {
        if (Date.now() > end || server.exitCode !== null) throw new Error(`server did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    accessToken: async (email) => token(await signInCookie(email)),
    async newOrganization(email, name) {
      const cookie = await signInCookie(email);
      const made = await fetch(`${auth}/api/fe/v3/create_org`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": "-.-", "content-type": "application/json", origin: api },
        body: JSON.stringify({ name }),
      });
      if (!made.ok) throw new Error(`create org: ${made.status} ${await made.text()}`);
      const orgId = ((await made.json()) as { org_id: string }).org_id;
      return { orgId, token: await token(cookie, orgId) };
    },
    ingestKey(org, name) {
      const printed = execFileSync(
        process.execPath,
        ["--import", "tsx", "server/main.ts", "ingest-key", "create", "--org", org, "--name", name],
        { env: { ...process.env, ...env }, encoding: "utf8" },
      );
      const token = /eci_[A-Za-z0-9_-]{43}/.exec(printed)?.[0];
      if (!token) throw new Error(`ingest-key create printed no token:\n${printed}`);
      return token;
    },
    stop() {
      server.kill("SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The demo (30,000 events, embedded database) serving the console build in `consoleDir`, as the
 * browser benchmarks that trace one build use it (console-trace.ts, react-render.ts). */
export const serveConsoleDemo = (consoleDir: string, port: number) =>
  serveProduct({ port, events: 30_000, label: "trace", env: { CONSOLE_DIR: consoleDir } });

/** The q-quantile of `xs` (nearest rank). */
export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

/** `n` sequential probes of `url`, 10 ms apart: their latencies in ms (a 5xx aborts the run). */
export async function probe(url: string, n: number, headers: Record<string, string> = {}): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers, redirect: "manual" });
    await res.arrayBuffer();
    if (res.status >= 500) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  return times;
}

/**
 * Runs `work` over and over until `signal` aborts, as a hostile client would (a 429 is retried at
 * once, Retry-After ignored); counts answers by status (0: network error).
 */
export async function loop(work: () => Promise<Response>, signal: AbortSignal, counts: Map<number, number>) {
  while (!signal.aborted) {
    try {
      const res = await work();
      await res.arrayBuffer();
      counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
    } catch {
      if (!signal.aborted) counts.set(0, (counts.get(0) ?? 0) + 1);
    }
  }
}

/** "200: 12, 429: 3" */
export const describeCounts = (counts: Map<number, number>) =>
  [...counts].map(([s, n]) => `${s === 0 ? "network error" : s}: ${n}`).join(", ");
