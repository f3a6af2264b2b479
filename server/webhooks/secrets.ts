import { randomBytes } from "node:crypto";
import { webhookEndpoints } from "../db/schema";
import type { Config } from "../platform/config";
import type { Database, Db } from "../platform/database";
import { type Keyring, resealColumn, resolveKeyring, seal, unseal } from "../platform/secrets";

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

// The setting name bound into the ciphertext: a sealed secret cannot be moved to another endpoint.
const sealName = (endpointUuid: string) => `webhook_endpoint:${endpointUuid}`;

export const sealSigningSecret = (keyring: Keyring, endpointUuid: string, secret: string) =>
  seal(keyring, sealName(endpointUuid), secret);

export const openSigningSecret = (keyring: Keyring, endpointUuid: string, sealed: string) =>
  unseal(keyring, sealName(endpointUuid), sealed);

// One keyring per database handle, so every API service built on it (tests build several on one
// in-memory database) seals and opens with the same key; the same key source as identity's.
const keyrings = new WeakMap<Db, Keyring>();

/** The keyring that seals webhook secrets: SECRETS_KEY, or the key file beside the data. */
export function webhookKeyring(config: Config, database: Database): Keyring {
  let keyring = keyrings.get(database.db);
  if (!keyring) {
    keyring = resolveKeyring({
      secretsKey: config.secretsKey,
      secretsKeysPrevious: config.secretsKeysPrevious,
      dataDir: config.dataDir,
      inMemoryDatabase: database.describe === "PGlite in memory",
      databaseKind: database.kind,
    });
    keyrings.set(database.db, keyring);
  }
  return keyring;
}

/**
 * Re-seals every signing secret sealed under a previous key (SECRETS_KEY_PREVIOUS) with the current
 * one, at start, as identity does with its settings, so the old key can be dropped after a
 * rotation. Each rewrite replaces only the value it read: processes starting together agree.
 * A secret no key in the ring opens is left as it is (its deliveries fail and say so).
 */
export async function resealSigningSecrets(db: Db, keyring: Keyring): Promise<number> {
  return resealColumn(db, keyring, {
    id: webhookEndpoints.endpointUuid,
    value: webhookEndpoints.secretSealed,
    sealName,
    sealPlaintext: false,
    skipUnopenable: true,
  });
}
