import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, expect } from "vitest";
import { createApiService } from "../../server/api/service";
import { buildProduct, type Product } from "../../server/app";
import { loadConfig } from "../../server/platform/config";
import { type Database, openDatabase } from "../../server/platform/database";
import { createHttpIdentityGateway } from "../../server/platform/identity-gateway-http";

export const PASSWORD = "test-demo-password";
export const CONSOLE = "http://localhost:3000";
export const AUTH = "http://localhost:3001";

export type Backend = { name: string; open(): Promise<{ database: Database; drop(): Promise<void> }> };

/** PGlite always; PostgreSQL too when DATABASE_URL is set (each test file gets its own database). */
export function backends(): Backend[] {
  const list: Backend[] = [
    {
      name: "pglite",
      open: async () => ({
        database: await openDatabase({ kind: "pglite", dataDir: null }),
        drop: async () => {},
      }),
    },
  ];
  const url = process.env.DATABASE_URL;
  if (url) {
    list.push({
      name: "postgres",
      async open() {
        const scratch = await createScratchDatabase(url, `ec_test_${randomBytes(6).toString("hex")}`);
        return { database: await openDatabase({ kind: "postgres", url: scratch.url }), drop: scratch.drop };
      },
    });
  }
  return list;
}

/** A new, empty database `name` on the server of `adminUrl`: its URL, and how to drop it again. */
export async function createScratchDatabase(adminUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
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

/** A product with the demo seeded, built on the given backend; nothing listens (use inject). */
export async function startProduct(backend: Backend, env: Record<string, string> = {}): Promise<TestProduct> {
  const { database, drop } = await backend.open();
  const config = loadConfig({
    DEMO_PASSWORD: PASSWORD,
    CONSOLE_DIR: "./tests/server/fixtures/console",
    // The suites send usage on fixed calendar days, which a horizon counted back from today would
    // refuse one day; the horizon has its own suite (usage-key-retention), which sets it.
    USAGE_MAX_AGE_DAYS: "0",
    ...env,
  });
  const product = await buildProduct(config, pino({ level: "silent" }), database);
  await product.seed(false);
  return {
    ...product,
    async dispose() {
      await product.close();
      await drop();
    },
  };
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
