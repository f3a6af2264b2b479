import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { createApiService } from "../../server/api/service";
import { buildProduct, type Product } from "../../server/app";
import { loadConfig } from "../../server/platform/config";
import { type Database, openDatabase } from "../../server/platform/database";
import { createHttpIdentityGateway } from "../../server/platform/identity-gateway-http";

export const PASSWORD = "test-demo-password";
export const CONSOLE = "http://localhost:3000";
export const AUTH = "http://localhost:3001";

type Opened = { database: Database; drop(): Promise<void> };
export type Backend = {
  name: string;
  /** A new, empty database. */
  open(): Promise<Opened>;
  /** A new database holding what startProduct's migrations and seed make (tests/server/seeded-template). */
  openSeeded(): Promise<Opened>;
};

/** The run's seeded PGlite image, PostgreSQL template and the key their stored secrets are sealed
 * with, when the global setup made them (it does for the server project; a harness used outside it
 * builds every product itself). */
function seededTemplates() {
  try {
    return {
      image: inject("seededPgliteImage"),
      template: inject("seededPostgresTemplate"),
      secretsKey: inject("seededSecretsKey"),
    };
  } catch {
    return { image: "", template: "", secretsKey: "" };
  }
}
const SEEDED = seededTemplates();

/** Settings that make a product's database differ from the seeded one's: such a product builds its
 * own. */
const UNSEEDED_SETTINGS = ["DEMO_PASSWORD", "SECRETS_KEY", "SECRETS_KEY_PREVIOUS", "DATA_DIR"];

/** The settings of each product built from the seeded database, for a second process on it. */
const seededSettings = new WeakMap<Product, Record<string, string>>();

let pgliteImage: Blob | undefined;

/** PGlite always; PostgreSQL too when DATABASE_URL is set (each test file gets its own database). */
export function backends(): Backend[] {
  const pglite = async (image?: Blob) => ({
    database: await openDatabase({ kind: "pglite", dataDir: null, ...(image ? { image } : {}) }),
    drop: async () => {},
  });
  const list: Backend[] = [
    {
      name: "pglite",
      open: () => pglite(),
      openSeeded: () => {
        if (SEEDED.image && !pgliteImage) pgliteImage = new Blob([readFileSync(SEEDED.image)]);
        return pglite(pgliteImage);
      },
    },
  ];
  const url = process.env.DATABASE_URL;
  if (url) {
    const postgres = async (template?: string) => {
      const name = `ec_test_${randomBytes(6).toString("hex")}`;
      const scratch = await createScratchDatabase(url, name, template);
      return { database: await openDatabase({ kind: "postgres", url: scratch.url }), drop: scratch.drop };
    };
    list.push({
      name: "postgres",
      open: () => postgres(),
      openSeeded: () => postgres(SEEDED.template || undefined),
    });
  }
  return list;
}

/**
 * A new database `name` on the server of `adminUrl`, empty or a copy of `template`: its URL, and
 * how to drop it again.
 */
export async function createScratchDatabase(adminUrl: string, name: string, template?: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ""}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export type TestProduct = Product & { dispose(): Promise<void> };

/**
 * Called in a describe block: its product (the demo seeded, on `backend`) as `p`, built before
 * its tests and disposed after them.
 */
export function productPerSuite(backend: Backend) {
  const suite = {} as { p: TestProduct };
  beforeAll(async () => {
    suite.p = await startProduct(backend);
  });
  afterAll(async () => suite.p?.dispose());
  return suite;
}

/** The configuration of startProduct's products, with `env` over it. */
export function seededConfig(env: Record<string, string> = {}): Record<string, string> {
  return {
    DEMO_PASSWORD: PASSWORD,
    CONSOLE_DIR: "./tests/server/fixtures/console",
    // The suites send usage on fixed calendar days, which a horizon counted back from today would
    // refuse one day; the horizon has its own suite (usage-key-retention), which sets it.
    USAGE_MAX_AGE_DAYS: "0",
    ...env,
  };
}

/** A product with the demo seeded, built on the given backend; nothing listens (use inject). */
export async function startProduct(backend: Backend, env: Record<string, string> = {}): Promise<TestProduct> {
  // The run's seeded database holds the demo with the default password and its secrets sealed
  // with the run's key; the seed below then finds the demo there and adds nothing.
  const seeded = SEEDED.secretsKey !== "" && !UNSEEDED_SETTINGS.some((name) => name in env);
  const { database, drop } = await (seeded ? backend.openSeeded() : backend.open());
  const settings: Record<string, string> = seeded ? { SECRETS_KEY: SEEDED.secretsKey } : {};
  const config = loadConfig(seededConfig({ ...settings, ...env }));
  const product = await buildProduct(config, pino({ level: "silent" }), database);
  await product.seed(false);
  const test: TestProduct = {
    ...product,
    async dispose() {
      await product.close();
      await drop();
    },
  };
  seededSettings.set(test, settings);
  return test;
}

/**
 * A second product (identity + API, its own pool and in-memory caches) on p's PostgreSQL database,
 * as a second server process behind a load balancer would be. Not seeded: it shares p's data.
 */
export async function secondProcess(p: Product, env: Record<string, string> = {}): Promise<Product> {
  const rows = await p.database.db.execute<{ name: string }>(sql`select current_database() as name`);
  const name = (rows as unknown as { rows?: { name: string }[] }).rows?.[0]?.name ?? "";
  const url = new URL(process.env.DATABASE_URL ?? "");
  url.pathname = `/${name}`;
  const config = loadConfig({
    DEMO_PASSWORD: PASSWORD,
    CONSOLE_DIR: "./tests/server/fixtures/console",
    DATABASE_URL: url.toString(),
    ...seededSettings.get(p),
    ...env,
  });
  return buildProduct(
    config,
    pino({ level: "silent" }),
    await openDatabase({ kind: "postgres", url: url.toString() }),
  );
}

export function cookieHeader(setCookie: string | string[] | undefined): string {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return list.map((c) => c.split(";")[0]).join("; ");
}

/** Signs in through the hosted login form; returns the session cookie. */
export async function signIn(p: Product, email: string, password = PASSWORD): Promise<string> {
  const res = await p.identity.app.inject({
    method: "POST",
    url: "/login",
    // As a browser posts the hosted form: from the identity service's own page.
    headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
    payload: new URLSearchParams({ email, password }).toString(),
  });
  if (res.statusCode !== 303) throw new Error(`sign-in of ${email} failed: ${res.statusCode}`);
  return cookieHeader(res.headers["set-cookie"]);
}

export async function accessToken(p: Product, email: string): Promise<string> {
  const cookie = await signIn(p, email);
  const res = await p.identity.app.inject({
    method: "GET",
    url: "/api/v1/refresh_token",
    headers: { cookie },
  });
  return res.json().access_token as string;
}

/** A new organization API key made by the signed-in administrator (`cookie`): its id and token. */
export async function createOrgApiKey(
  p: Product,
  cookie: string,
  orgId: string,
): Promise<{ id: string; token: string }> {
  const res = await p.identity.app.inject({
    method: "POST",
    url: "/api/fe/v3/api_keys",
    headers: { cookie, "x-csrf-token": "-.-" },
    payload: { org_id: orgId, expiration_option: "OneMonth" },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.json().api_key_id, token: res.json().api_key_token };
}

/**
 * The identity service listening on a free port, and a second product API that reaches it through
 * the HTTP identity gateway (as a separate deployment would); close `api.app` when done.
 */
export async function apiOverHttpGateway(p: TestProduct) {
  const address = await p.identity.app.listen({ port: 0, host: "127.0.0.1" });
  const gateway = createHttpIdentityGateway({
    identityUrl: address,
    backendApiKey: p.identity.ctx.backendApiKey,
    issuer: AUTH,
  });
  const api = await createApiService(p.config, p.database, gateway, pino({ level: "silent" }));
  return { address, gateway, api };
}
