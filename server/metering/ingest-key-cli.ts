/**
 * The `ingest-key` commands. PGlite admits one process: while a server runs on the embedded
 * database, the CLI asks that server (its operator API, with the backend API key) instead of
 * opening the database; the server leaves its address and that key in DATA_DIR/api-server.json
 * (owner-only, like the database files beside it, which hold the same key) while it runs.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Db } from "../platform/database";
import { BillingError, resolveOrganization } from "./billing";
import type { IngestKeyCommand } from "./cli";
import {
  createIngestKey,
  type IngestKeyJson,
  ingestKeyJson,
  listIngestKeys,
  revokeIngestKey,
} from "./ingest-keys";

const RUNNING_SERVER_FILE = "api-server.json";

type RunningServer = { pid: number; url: string; operator_key: string };

/** Records the running server in the data directory (call once it listens). */
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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** The server running on this data directory, if one does (a file left by a dead one is ignored). */
export function findRunningServer(dataDir: string): RunningServer | null {
  try {
    const r = JSON.parse(readFileSync(join(resolve(dataDir), RUNNING_SERVER_FILE), "utf8")) as RunningServer;
    if (typeof r.pid !== "number" || typeof r.url !== "string" || typeof r.operator_key !== "string")
      return null;
    return alive(r.pid) ? r : null;
  } catch {
    return null;
  }
}

/** The operator API's JSON for a key (also what the direct path prints from). */
/** What a command needs, either from the database or from a running server. */
type Backend = {
  create(org: string | undefined, name: string): Promise<IngestKeyJson & { token: string }>;
  list(): Promise<IngestKeyJson[]>;
  revoke(id: string): Promise<IngestKeyJson>;
};

/** A failure the CLI prints as one line (exit 1). */
export class IngestKeyError extends Error {}

export function databaseBackend(db: Db): Backend {
  return {
    async create(org, name) {
      let organizationUuid: string | null = null;
      if (org) {
        try {
          organizationUuid = (await resolveOrganization(db, org)).id;
        } catch (err) {
          if (err instanceof BillingError) throw new IngestKeyError(err.message);
          throw err;
        }
      }
      const { key, token } = await createIngestKey(db, { name, organizationUuid });
      return { ...ingestKeyJson(key), token };
    },
    list: async () => (await listIngestKeys(db)).map(ingestKeyJson),
    async revoke(id) {
      const r = await revokeIngestKey(db, id);
      if (r.status === "not_found") throw new IngestKeyError(`No ingestion key ${id}.`);
      if (r.status === "already_revoked") throw new IngestKeyError(`Ingestion key ${id} is already revoked.`);
      return ingestKeyJson(r.key);
    },
  };
}

export function serverBackend(server: { url: string; operator_key: string }): Backend {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${server.url}/v1/operator/ingest-keys${path}`, {
        method,
        headers: {
          authorization: `Bearer ${server.operator_key}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      throw new IngestKeyError(
        `The server running on this data directory does not answer at ${server.url} (${(err as Error).message}).`,
      );
    }
    const json = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok) throw new IngestKeyError(json?.error?.message ?? `The server answered ${res.status}.`);
    return json as T;
  }
  return {
    create: (org, name) => call("POST", "", { name, ...(org ? { organization: org } : {}) }),
    list: () => call("GET", ""),
    revoke: (id) => call("POST", `/${encodeURIComponent(id)}/revoke`),
  };
}

const day = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "-");

/** Runs one command, printing its result; throws IngestKeyError for a one-line failure. */
export async function runIngestKeyCommand(
  cmd: IngestKeyCommand,
  backend: Backend,
  opts: { apiUrl: string; defaultName: string; log?: (line: string) => void },
) {
  const log = opts.log ?? ((line: string) => console.log(line));
  if (cmd.kind === "create") {
    const k = await backend.create(cmd.org, cmd.name ?? opts.defaultName);
    log(
      `Ingestion key ${k.ingest_key_uuid} "${k.name}" created, for ${k.organization_uuid ? `organization ${k.organization_uuid}` : "all organizations"}.`,
    );
    log("Token (shown only now; the server keeps its SHA-256):");
    log(`  ${k.token}`);
    log(
      `Send usage: POST ${opts.apiUrl}/v1/usage/events with header "x-api-key: ${k.token.slice(0, 8)}..."` +
        (k.organization_uuid ? "" : " and ?organization_uuid=<organization uuid>"),
    );
  } else if (cmd.kind === "list") {
    const keys = await backend.list();
    if (!keys.length) {
      log("No ingestion keys.");
      return;
    }
    const rows = [
      ["UUID", "NAME", "SCOPE", "CREATED", "LAST USED", "REVOKED"],
      ...keys.map((k) => [
        k.ingest_key_uuid,
        k.name,
        k.organization_uuid ?? "all organizations",
        day(k.created_at),
        day(k.last_used_at),
        day(k.revoked_at),
      ]),
    ];
    const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
    for (const r of rows)
      log(
        r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join("  ")
          .trimEnd(),
      );
  } else {
    const k = await backend.revoke(cmd.ingestKeyUuid);
    log(`Ingestion key ${k.ingest_key_uuid} "${k.name}" is revoked.`);
  }
}
