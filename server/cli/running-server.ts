/**
 * The server running on an embedded data directory, as the CLI finds and calls it. PGlite admits
 * one process: while a server runs on the directory, operator commands ask that server (its
 * operator API, with the local operator credential) instead of opening the database. The server
 * leaves its address and that credential (the backend API key) in DATA_DIR/api-server.json,
 * owner-only like the database files beside it, which hold the same key, while it runs.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { lockHolder } from "../platform/data-dir-lock";

const RUNNING_SERVER_FILE = "api-server.json";

export type RunningServer = { pid: number; url: string; operator_key: string };

/** Records the running server in the data directory (call once it listens); returns the undo. */
export function recordRunningServer(dataDir: string, server: { url: string; operatorKey: string }) {
  const file = join(resolve(dataDir), RUNNING_SERVER_FILE);
  const body: RunningServer = { pid: process.pid, url: server.url, operator_key: server.operatorKey };
  writeFileSync(file, `${JSON.stringify(body)}\n`, { mode: 0o600 });
  return () => {
    try {
      const now = JSON.parse(readFileSync(file, "utf8")) as RunningServer;
      if (now.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
}

/**
 * The server running on this data directory, if one does: the file's pid must be the live server
 * holding the directory's lock (platform/data-dir-lock.ts), so a file left by a killed server —
 * even one whose pid now belongs to another process — is ignored.
 */
export function findRunningServer(dataDir: string): RunningServer | null {
  try {
    const r = JSON.parse(readFileSync(join(resolve(dataDir), RUNNING_SERVER_FILE), "utf8")) as RunningServer;
    if (typeof r.pid !== "number" || typeof r.url !== "string" || typeof r.operator_key !== "string")
      return null;
    const holder = lockHolder(dataDir);
    return holder?.role === "server" && holder.pid === r.pid ? r : null;
  } catch {
    return null;
  }
}

/** The server refused a call (its one-line message and status), or could not be reached (status 0). */
export class ServerCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export type ServerCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * A JSON caller of the server's API (`path` from /v1 on), as the local operator: the answer's
 * JSON, or a ServerCallError carrying the API's own message for any status other than 2xx.
 */
export function serverCaller(server: Pick<RunningServer, "url" | "operator_key">): ServerCall {
  return async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${server.operator_key}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        // Archiving a large month or purging a long log takes a while; a hung server is Ctrl-C.
        signal: AbortSignal.timeout(600_000),
      });
    } catch (err) {
      throw new ServerCallError(
        `The server running on this data directory does not answer at ${server.url} (${(err as Error).message}).`,
        0,
      );
    }
    const json = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok)
      throw new ServerCallError(json?.error?.message ?? `The server answered ${res.status}.`, res.status);
    return json as T;
  };
}
