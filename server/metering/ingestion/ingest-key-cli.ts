/**
 * The `ingest-key` commands: on the database itself, or, while a server runs on the embedded
 * database, through that server's operator API (see cli/running-server.ts).
 */
import { type RunningServer, ServerCallError, serverCaller } from "../../cli/running-server";
import type { Db } from "../../platform/database";
import { BillingError, resolveOrganization } from "../billing/billing";
import type { IngestKeyCommand } from "../shared/cli-args";
import {
  createIngestKey,
  type IngestKeyJson,
  ingestKeyJson,
  listIngestKeys,
  revokeIngestKey,
} from "./ingest-keys";

// The server (serve.ts) records itself with these; they live with the other CLI-to-server parts.
export { findRunningServer, recordRunningServer } from "../../cli/running-server";

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

export function serverBackend(server: Pick<RunningServer, "url" | "operator_key">): Backend {
  const calls = serverCaller(server);
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    try {
      return await calls<T>(method, `/v1/operator/ingest-keys${path}`, body);
    } catch (err) {
      if (err instanceof ServerCallError) throw new IngestKeyError(err.message);
      throw err;
    }
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
