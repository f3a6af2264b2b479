/**
 * Ingestion keys: the provider credential with which the platform's eval services send usage
 * (POST /v1/usage/events, header x-api-key). Created by an operator (CLI `ingest-key create` or the
 * operator API), shown once, stored as the SHA-256 of the token, scoped to one organization or to
 * all, revocable. They are the product's own: validating one never reaches the identity service.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import { ingestKeys } from "../../db/schema";
import { type Actor, CLI_ACTOR, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { loadingCache } from "../../platform/loading-cache";

/** Every ingestion key starts with this; customer API keys never do. */
export const INGEST_KEY_PREFIX = "eci_";

/** The prefix and 32 random bytes in base64url (43 characters). */
const TOKEN = /^eci_[A-Za-z0-9_-]{43}$/;

export const isIngestKeyToken = (token: string) => token.startsWith(INGEST_KEY_PREFIX);

export const hashIngestKey = (token: string) => createHash("sha256").update(token).digest("hex");

export type IngestKey = {
  ingestKeyUuid: string;
  name: string;
  /** null: the key may send usage for every organization (naming one per call). */
  organizationUuid: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
};

/** A key as the operator API answers it and the CLI prints it (never the token). */
export type IngestKeyJson = {
  ingest_key_uuid: string;
  name: string;
  organization_uuid: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

export const ingestKeyJson = (k: IngestKey): IngestKeyJson => ({
  ingest_key_uuid: k.ingestKeyUuid,
  name: k.name,
  organization_uuid: k.organizationUuid,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

const columns = {
  ingestKeyUuid: ingestKeys.ingestKeyUuid,
  name: ingestKeys.name,
  organizationUuid: ingestKeys.organizationUuid,
  createdAt: ingestKeys.createdAt,
  revokedAt: ingestKeys.revokedAt,
  lastUsedAt: ingestKeys.lastUsedAt,
};

/** A key's audit row: its organization's, or a platform row for a key of every organization. */
const keyAudit = (tx: Tx, action: "ingest_key.created" | "ingest_key.revoked", key: IngestKey, by: Actor) =>
  writeAudit(tx, {
    organizationUuid: key.organizationUuid,
    actor: by,
    action,
    target: { type: "ingest_key", id: key.ingestKeyUuid, label: key.name },
    ...(action === "ingest_key.created"
      ? { after: { name: key.name, organization_uuid: key.organizationUuid } }
      : { before: { revoked_at: null }, after: { revoked_at: key.revokedAt } }),
  });

/**
 * Creates a key; the token is returned here once and stored only as its hash. `by` is who asked
 * (the command line unless said otherwise), for the audit row written with it.
 */
export async function createIngestKey(
  db: Db,
  input: { name: string; organizationUuid: string | null; by?: Actor },
): Promise<{ key: IngestKey; token: string }> {
  const token = `${INGEST_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  const key = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(ingestKeys)
      .values({ name: input.name, organizationUuid: input.organizationUuid, tokenHash: hashIngestKey(token) })
      .returning(columns);
    if (!row) throw new Error("unreachable: insert returned no row");
    await keyAudit(tx, "ingest_key.created", row, input.by ?? CLI_ACTOR);
    return row;
  });
  return { key, token };
}

/** Every key, oldest first (revoked ones too); never a token. */
export const listIngestKeys = (db: Db): Promise<IngestKey[]> =>
  db.select(columns).from(ingestKeys).orderBy(asc(ingestKeys.createdAt), asc(ingestKeys.ingestKeyUuid));

/**
 * Revokes a key: "revoked" now, "already_revoked" (nothing changes) or "not_found". A revoked key
 * is refused at once by the process that revoked it and within INGEST_KEY_CACHE_MS by the others.
 */
export async function revokeIngestKey(
  db: Db,
  ingestKeyUuid: string,
  by: Actor = CLI_ACTOR,
): Promise<{ status: "revoked" | "already_revoked"; key: IngestKey } | { status: "not_found" }> {
  const revoked = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(ingestKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(ingestKeys.ingestKeyUuid, ingestKeyUuid), isNull(ingestKeys.revokedAt)))
      .returning(columns);
    if (row) await keyAudit(tx, "ingest_key.revoked", row, by);
    return row;
  });
  if (revoked) return { status: "revoked", key: revoked };
  const [existing] = await db
    .select(columns)
    .from(ingestKeys)
    .where(eq(ingestKeys.ingestKeyUuid, ingestKeyUuid));
  return existing ? { status: "already_revoked", key: existing } : { status: "not_found" };
}

/** How long a validated (or refused) token is remembered by one API process. */
export const INGEST_KEY_CACHE_MS = 5_000;
/** last_used_at is written at most this often per key. */
const LAST_USED_EVERY_MS = 60_000;
const MAX_CACHED = 10_000;

export type IngestKeyVerifier = {
  /** The live key behind a token, or null (unknown, malformed or revoked). */
  verify(token: string): Promise<IngestKey | null>;
  /** Forgets what is cached, e.g. after a revocation in this process. */
  forget(): void;
};

/**
 * Validates tokens against ingest_keys with a short cache, so a busy sender costs one lookup per
 * few seconds and a revocation holds within INGEST_KEY_CACHE_MS across processes.
 */
export function createIngestKeyVerifier(db: Db, opts: { cacheMs?: number } = {}): IngestKeyVerifier {
  // Refused tokens are remembered too: a sender retrying a revoked key costs no lookup either.
  const cache = loadingCache({
    ttlMs: opts.cacheMs ?? INGEST_KEY_CACHE_MS,
    max: MAX_CACHED,
    load: async (hash: string): Promise<IngestKey | null> => {
      const [row] = await db
        .select(columns)
        .from(ingestKeys)
        .where(and(eq(ingestKeys.tokenHash, hash), isNull(ingestKeys.revokedAt)));
      return row ?? null;
    },
  });
  const touched = new Map<string, number>();
  return {
    forget: () => cache.cache.clear(),
    async verify(token) {
      if (!TOKEN.test(token)) return null;
      const key = await cache.get(hashIngestKey(token));
      const now = Date.now();
      if (key && now - (touched.get(key.ingestKeyUuid) ?? 0) >= LAST_USED_EVERY_MS) {
        touched.set(key.ingestKeyUuid, now);
        const id = key.ingestKeyUuid;
        // Best effort, off the request's path: a lost update only makes "last used" older.
        void db
          .update(ingestKeys)
          .set({ lastUsedAt: new Date(now) })
          .where(eq(ingestKeys.ingestKeyUuid, id))
          .catch(() => touched.delete(id));
      }
      return key;
    },
  };
}
