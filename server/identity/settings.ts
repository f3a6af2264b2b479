import { randomBytes } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { exportPKCS8, exportSPKI, generateKeyPair } from "jose";
import { setting } from "../db/schema";
import type { Db } from "../platform/database";
import { type Keyring, resealColumn, seal, sealedWith, unseal } from "../platform/secrets";

/** The settings that hold secrets: stored sealed (AES-256-GCM under SECRETS_KEY), never in clear. */
const SECRET_SETTINGS = ["token_signing_key", "auth_secret", "backend_api_key"] as const;
type SecretSetting = (typeof SECRET_SETTINGS)[number];

// The keyring each database's secrets are sealed with, set when the identity service starts, so
// readers that hold only the database (the backend API's key endpoint, tools) can open them.
const keyrings = new WeakMap<Db, Keyring>();

function setKeyring(db: Db, keyring: Keyring) {
  keyrings.set(db, keyring);
}

function keyringOf(db: Db): Keyring {
  const k = keyrings.get(db);
  if (!k) throw new Error("stored secrets are read before the identity service set their key");
  return k;
}

/**
 * Seals every stored secret under the current key: plaintext values (from before encryption)
 * and values sealed under a previous key (SECRETS_KEY_PREVIOUS) are rewritten in place. Each
 * rewrite only replaces the value it read, so several processes starting at once agree.
 * Returns how many values were rewritten.
 */
export async function sealStoredSecrets(db: Db, keyring: Keyring): Promise<number> {
  setKeyring(db, keyring);
  return resealColumn(db, keyring, {
    id: setting.key,
    value: setting.value,
    where: inArray(setting.key, [...SECRET_SETTINGS]),
    // A setting's value is sealed under the setting's own name.
    sealName: (key) => key,
    sealPlaintext: true,
    skipUnopenable: false,
  });
}

/**
 * Reads a secret setting, creating it with `make()` on first use. Concurrent first starts
 * (several API instances on one PostgreSQL) agree on one value: insert-if-absent, then re-read.
 */
async function getOrCreate(db: Db, key: SecretSetting, make: () => Promise<string>): Promise<string> {
  const keyring = keyringOf(db);
  const read = async () => (await db.select().from(setting).where(eq(setting.key, key)))[0];
  let row = await read();
  if (!row) {
    await db
      .insert(setting)
      .values({ key, value: seal(keyring, key, await make()) })
      .onConflictDoNothing();
    row = await read();
  }
  if (!row) throw new Error(`setting ${key} could not be stored`);
  return sealedWith(row.value) === null ? row.value : unseal(keyring, key, row.value);
}

export type SigningKeys = { privatePem: string; publicPem: string; kid: string };

/** The RS256 key pair that signs access tokens; made once per installation. */
export async function loadSigningKeys(db: Db): Promise<SigningKeys> {
  const json = await getOrCreate(db, "token_signing_key", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256", {
      extractable: true,
      modulusLength: 2048,
    });
    return JSON.stringify({
      privatePem: await exportPKCS8(privateKey),
      publicPem: await exportSPKI(publicKey),
      kid: randomBytes(8).toString("hex"),
    });
  });
  return JSON.parse(json) as SigningKeys;
}

/** better-auth's secret (cookie signing): AUTH_SECRET when set, else one stored on first start. */
export async function loadAuthSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  return getOrCreate(db, "auth_secret", async () => randomBytes(32).toString("base64url"));
}

/** The backend API's server-to-server secret: BACKEND_API_KEY when set, else one stored on first start. */
export async function loadBackendApiKey(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  return getOrCreate(db, "backend_api_key", async () => randomBytes(32).toString("base64url"));
}
