import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { exportPKCS8, exportSPKI, generateKeyPair } from "jose";
import { setting } from "../db/schema";
import type { Db } from "../platform/database";

/**
 * Reads an instance setting, creating it with `make()` on first use. Concurrent first starts
 * (several API instances on one PostgreSQL) agree on one value: insert-if-absent, then re-read.
 */
async function getOrCreate(db: Db, key: string, make: () => Promise<string>): Promise<string> {
  const found = await db.select().from(setting).where(eq(setting.key, key));
  if (found[0]) return found[0].value;
  await db
    .insert(setting)
    .values({ key, value: await make() })
    .onConflictDoNothing();
  const [row] = await db.select().from(setting).where(eq(setting.key, key));
  if (!row) throw new Error(`setting ${key} could not be stored`);
  return row.value;
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
