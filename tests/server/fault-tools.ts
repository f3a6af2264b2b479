// Helpers of the fault suites: the server CLI as a child process on free ports, credentials over
// real HTTP, and a usage client that retries every batch (same event ids) until it is acknowledged.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { serverCommand } from "./cli-process";

export const FAULT_PASSWORD = "fault-demo-password";

/** A port nobody listens on right now (the kernel's pick, released again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export type ServerProcess = {
  child: ChildProcess;
  pid: number;
  exited: Promise<number | null>;
  output(): string;
  /** Sends a signal to this process only. */
  kill(signal: NodeJS.Signals): void;
};

/**
 * `serve` from the CLI with a small demo (no generated usage: the suites count their own events);
 * resolves once it prints that it is running, rejects with its output if it exits or hangs first.
 */
export async function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  // Node itself (the built bundle, or tsx's loader), not the tsx command: that one runs the server
  // in a child of its own, and a SIGKILL would then hit the wrapper and leave the server running.
  const [, argv] = serverCommand(["serve"]);
  const entry = argv[0] === "server/main.ts" ? ["--import", "tsx", ...argv] : argv;
  const child = spawn(process.execPath, entry, {
    env: {
      ...process.env,
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      DEMO_PASSWORD: FAULT_PASSWORD,
      DEMO_EVENTS: "0",
      BACKEND_API_KEY: FAULT_BACKEND_KEY,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const proc: ServerProcess = {
    child,
    pid: child.pid ?? -1,
    exited,
    output: () => out,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
  const end = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!out.includes("Eval Console is running")) {
    if (gone) throw new Error(`the server exited during start-up:\n${out}`);
    if (Date.now() > end) {
      proc.kill("SIGKILL");
      throw new Error(`the server did not start within ${timeoutMs} ms:\n${out}`);
    }
    await sleep(100);
  }
  return proc;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cookieOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Signs the demo administrator in over HTTP; returns the session cookie, an access token and the org. */
export async function signInOverHttp(authUrl: string, email = "admin@acme.test") {
  // Posted as the hosted page posts it: from the server's AUTH_PUBLIC_URL (http://localhost:AUTH_PORT).
  const own = `http://localhost:${new URL(authUrl).port}`;
  const login = await fetch(`${authUrl}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: own },
    body: new URLSearchParams({ email, password: FAULT_PASSWORD }).toString(),
  });
  if (login.status !== 303) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const cookie = cookieOf(login);
  const auth = await (await fetch(`${authUrl}/api/v1/refresh_token`, { headers: { cookie } })).json();
  const orgId = Object.keys(auth.org_id_to_org_member_info ?? {})[0];
  if (!orgId) throw new Error("the demo administrator has no organization");
  return { cookie, accessToken: auth.access_token as string, orgId };
}

/** An organization API key of the demo administrator, made over HTTP. */
export async function orgApiKey(authUrl: string): Promise<string> {
  const { cookie, orgId } = await signInOverHttp(authUrl);
  const res = await fetch(`${authUrl}/api/fe/v3/api_keys`, {
    method: "POST",
    headers: { cookie, "x-csrf-token": "-.-", "content-type": "application/json" },
    body: JSON.stringify({ org_id: orgId, expiration_option: "OneMonth" }),
  });
  if (res.status !== 200) throw new Error(`organization API key: ${res.status} ${await res.text()}`);
  return (await res.json()).api_key_token as string;
}

/** The backend API key of the fault servers: operator calls (e.g. making ingestion keys) use it. */
export const FAULT_BACKEND_KEY = "fault-tests-backend-api-key-0123456789";

/** An ingestion key for the demo organization, made through the operator API. */
export async function ingestionKey(apiUrl: string): Promise<string> {
  const res = await fetch(`${apiUrl}/v1/operator/ingest-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${FAULT_BACKEND_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "fault tests", organization: "acme-ai" }),
  });
  if (res.status !== 200) throw new Error(`ingestion key: ${res.status} ${await res.text()}`);
  return (await res.json()).token as string;
}

/**
 * The server on two free ports with `env`, and what a load test needs of it: the environment it
 * runs with (to start it again on the same data), the API's address, an administrator's
 * organization key that reads the totals, an ingestion key that writes usage, and a time in the
 * open billing cycle for the events.
 */
export async function launchServer(prepared: Record<string, string>) {
  const port = await freePort();
  const authPort = await freePort();
  const env = { ...prepared, PORT: String(port), AUTH_PORT: String(authPort) };
  const api = `http://127.0.0.1:${port}`;
  const server = await startServer(env);
  try {
    const headers = { "x-api-key": await orgApiKey(`http://127.0.0.1:${authPort}`) };
    const ingest = { "x-api-key": await ingestionKey(api) };
    return { server, env, api, headers, ingest, at: openCycleTime() };
  } catch (err) {
    server.kill("SIGKILL");
    throw err;
  }
}

/** The demo organization's price for a generation event with eval_type "safety" (see server/seed.ts). */
export const UNIT_PRICE_MICROS = 50_000n;

/** A usage event the demo price list prices at UNIT_PRICE_MICROS, inside the open billing cycle. */
export function usageEvent(id: string, occurredAt: string) {
  return { event_id: id, occurred_at: occurredAt, operation: "generation", eval_type: "safety", quantity: 1 };
}

/** A time inside the current (open) billing cycle and not in the future: shortly before now, not before the 1st. */
export function openCycleTime(now = new Date()): string {
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return new Date(Math.max(monthStart, now.getTime() - 10_000)).toISOString();
}

export type BatchOutcome = { accepted: number; duplicates: number; attempts: number };

/**
 * POSTs one batch until it is acknowledged (200 with every event either accepted or a duplicate).
 * Refused connections, resets, timeouts and 5xx are retried with the same event ids; anything else
 * (a 4xx, a rejected event) is a test failure, not a fault to ride out.
 */
export async function sendUntilAcknowledged(
  apiUrl: () => string,
  headers: Record<string, string>,
  events: { event_id: string }[],
  opts: {
    deadline: number;
    /** A reason to give up at once (say the server could not be restarted), checked before each try. */
    giveUp?: () => Error | null;
    onAttempt?: () => void;
    /** Each failed attempt: the status and body, or the network error. */
    onFailure?: (failure: { status: number | null; body: string }) => void;
    retryDelayMs?: number;
  },
): Promise<BatchOutcome> {
  let attempts = 0;
  let last = "";
  while (Date.now() < opts.deadline) {
    const reason = opts.giveUp?.();
    if (reason) throw reason;
    attempts++;
    opts.onAttempt?.();
    try {
      const res = await fetch(`${apiUrl()}/v1/usage/events`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (res.status === 200) {
        const r = JSON.parse(text) as { accepted: number; duplicates: number; rejected: unknown[] };
        if (r.rejected.length || r.accepted + r.duplicates !== events.length)
          throw new Error(`batch not taken whole: ${text.slice(0, 500)}`);
        return { accepted: r.accepted, duplicates: r.duplicates, attempts };
      }
      opts.onFailure?.({ status: res.status, body: text });
      if (res.status < 500) throw new Error(`batch refused: ${res.status} ${text.slice(0, 500)}`);
      last = `${res.status} ${text.slice(0, 200)}`;
    } catch (err) {
      if ((err as Error).message.startsWith("batch ")) throw err;
      last = (err as Error).message;
      opts.onFailure?.({ status: null, body: last });
    }
    await sleep(opts.retryDelayMs ?? 100);
  }
  throw new Error(`batch ${events[0]?.event_id} not acknowledged before the deadline (last: ${last})`);
}

/** The open cycle's summary totals of the demo organization, read through the API. */
export async function summaryTotals(apiUrl: string, headers: Record<string, string>) {
  const res = await fetch(`${apiUrl}/v1/usage/summary`, { headers });
  if (res.status !== 200) throw new Error(`summary: ${res.status} ${await res.text()}`);
  return (await res.json()).totals as { events: number; count: number; cost: string };
}
