import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { and, eq, getTableColumns, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { ConfigError, decodeSecretsKey } from "./config";
import type { Db } from "./database";

/**
 * Instance secrets at rest (the token signing key, the auth secret, the backend API key) are kept
 * encrypted with AES-256-GCM under SECRETS_KEY. A stored value reads
 * `enc:v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url); the key id (a digest of the key) says
 * which key sealed it, and the setting's name is bound in as associated data, so a value cannot be
 * moved to another setting. SECRETS_KEY_PREVIOUS keys still open values; they are re-sealed under
 * the current key at start.
 */

export type Keyring = {
  /** Id of the key new values are sealed with. */
  currentId: string;
  keys: ReadonlyMap<string, Buffer>;
  /** Where the current key came from, for the start-up log. */
  source: "env" | "file" | "memory";
};

const PREFIX = "enc:v1:";
const KEY_FILE = "secrets.key";

export const keyId = (key: Buffer) => createHash("sha256").update(key).digest("hex").slice(0, 16);

export function makeKeyring(
  current: Buffer,
  previous: Buffer[] = [],
  source: Keyring["source"] = "env",
): Keyring {
  const keys = new Map<string, Buffer>();
  for (const k of [current, ...previous]) if (!keys.has(keyId(k))) keys.set(keyId(k), k);
  return { currentId: keyId(current), keys, source };
}

const isSealed = (stored: string) => stored.startsWith(PREFIX);

/** The id of the key that sealed a stored value, or null for a plaintext (legacy) value. */
export const sealedWith = (stored: string) => (isSealed(stored) ? (stored.split(":")[2] ?? "") : null);

export function seal(keyring: Keyring, name: string, plaintext: string): string {
  const key = keyring.keys.get(keyring.currentId) as Buffer;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(name));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const b64 = (b: Buffer) => b.toString("base64url");
  return `${PREFIX}${keyring.currentId}:${b64(iv)}:${b64(body)}:${b64(cipher.getAuthTag())}`;
}

/** Opens a sealed value; ConfigError when its key is not in the keyring or it was tampered with. */
export function unseal(keyring: Keyring, name: string, stored: string): string {
  const [, , id = "", iv = "", body = "", tag = ""] = stored.split(":");
  const key = keyring.keys.get(id);
  if (!key)
    throw new ConfigError(
      `The stored secret "${name}" is encrypted under a key that is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS (key id ${id}). Start with the key it was sealed with (or add it to SECRETS_KEY_PREVIOUS).`,
    );
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(name));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new ConfigError(`The stored secret "${name}" cannot be decrypted (damaged or altered).`);
  }
}

/**
 * The key in `<dataDir>/secrets.key`, made (32 random bytes, hex, mode 0600) when absent. Several
 * processes starting at once agree on one key: the file is written aside and linked into place,
 * which fails when another process got there first, and then that file is read.
 */
export function loadOrCreateKeyFile(dataDir: string): { key: Buffer; created: boolean } {
  const path = join(dataDir, KEY_FILE);
  const read = () => {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) chmodSync(path, 0o600);
    const key = decodeSecretsKey(readFileSync(path, "utf8"));
    if (!key) throw new ConfigError(`${path} does not hold a 32-byte key (64 hex digits or base64)`);
    return key;
  };
  try {
    return { key: read(), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString("hex")}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  let created = true;
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    created = false;
  } finally {
    unlinkSync(tmp);
  }
  return { key: read(), created };
}

type KeyringSource = {
  secretsKey: Buffer | undefined;
  secretsKeysPrevious: Buffer[];
  dataDir: string;
  /** The database lives in memory only (tests): a key for this process is enough. */
  inMemoryDatabase: boolean;
  databaseKind: "pglite" | "postgres";
};

type Log = { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };

/**
 * SECRETS_KEY (and SECRETS_KEY_PREVIOUS) when set. Otherwise a key file under DATA_DIR, made on
 * first start: the embedded default keeps it beside its database; with PostgreSQL it works for a
 * single server, and a warning asks for SECRETS_KEY (every API process must share one key).
 */
export function resolveKeyring(s: KeyringSource, log?: Log): Keyring {
  if (s.secretsKey) return makeKeyring(s.secretsKey, s.secretsKeysPrevious, "env");
  if (s.inMemoryDatabase) return makeKeyring(randomBytes(32), [], "memory");
  const { key, created } = loadOrCreateKeyFile(s.dataDir);
  const path = join(s.dataDir, KEY_FILE);
  if (s.databaseKind === "postgres")
    log?.warn(
      { path },
      `SECRETS_KEY is not set: stored secrets are encrypted with the key in ${path}${created ? " (generated now)" : ""}. Set SECRETS_KEY (the same in every API process) and keep it out of the database's backups.`,
    );
  else if (created) log?.info({ path }, "generated the key that encrypts stored secrets");
  return makeKeyring(key, [], "file");
}

/** Where a store keeps sealed secrets: one column of ids and one of sealed values, in one table. */
export type SealedColumn = {
  id: AnyPgColumn;
  value: AnyPgColumn;
  /** Which rows hold secrets; every row when unset. */
  where?: SQL;
  /** The name bound into a row's seal (a value opens only under the name it was sealed with). */
  sealName(id: string): string;
  /** Seal plaintext values (from before encryption); else they are left. */
  sealPlaintext: boolean;
  /** Leave a value no key in the ring opens (its readers fail and say so); else that fails here. */
  skipUnopenable: boolean;
};

/**
 * Re-seals a column's secrets under the current key, as each store does at start so a previous key
 * can be dropped after a rotation. Each row is rewritten only where it still holds the value read,
 * so processes starting at once agree. Returns how many values were rewritten.
 */
export async function resealColumn(db: Db, keyring: Keyring, c: SealedColumn): Promise<number> {
  const table = c.id.table;
  // The value column's property name, which update().set() is keyed by.
  const field = Object.entries(getTableColumns(table)).find(([, col]) => col === c.value)?.[0];
  if (!field) throw new Error(`column ${c.value.name} is not in the table of ${c.id.name}`);
  const rows = await db.select({ id: c.id, stored: c.value }).from(table).where(c.where);
  let rewritten = 0;
  for (const row of rows as { id: string; stored: string }[]) {
    const keyId = sealedWith(row.stored);
    if (keyId === keyring.currentId) continue;
    if (keyId === null && !c.sealPlaintext) continue;
    if (keyId !== null && c.skipUnopenable && !keyring.keys.has(keyId)) continue;
    const name = c.sealName(row.id);
    const plain = keyId === null ? row.stored : unseal(keyring, name, row.stored);
    const done = await db
      .update(table)
      .set({ [field]: seal(keyring, name, plain) })
      .where(and(eq(c.id, row.id), eq(c.value, row.stored)))
      .returning({ id: c.id });
    rewritten += done.length;
  }
  return rewritten;
}
