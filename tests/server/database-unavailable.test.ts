import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessToken, backends, startProduct, type TestProduct } from "./harness";

// A PostgreSQL database that refuses connections (ALTER DATABASE ... ALLOW_CONNECTIONS false, as
// during maintenance; SQLSTATE 55000 "is not currently accepting connections") after the
// product's connections were cut (57P01): every call answers 503 with Retry-After, /readyz says
// so without the driver's message (which names the database), and all is well once it is back.

const postgres = backends().find((b) => b.name === "postgres");

describe.skipIf(!postgres)("PostgreSQL not accepting connections", () => {
  let p: TestProduct;
  let token = "";
  let dbName = "";

  async function admin(sql: string) {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  }
  const closeDatabase = async () => {
    await admin(`alter database ${dbName} allow_connections false`);
    await admin(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${dbName}' and pid <> pg_backend_pid()`,
    );
  };
  const openDatabase = () => admin(`alter database ${dbName} allow_connections true`);

  beforeAll(async () => {
    if (!postgres) return;
    p = await startProduct(postgres);
    token = await accessToken(p, "admin@acme.test");
    dbName = p.database.describe.slice(p.database.describe.lastIndexOf("/") + 1);
    expect(dbName).toMatch(/^ec_test_[0-9a-f]+$/);
  });
  afterAll(async () => {
    if (dbName) await openDatabase().catch(() => {});
    await p?.dispose();
  });

  it("answers 503 with Retry-After on the API and a generic /readyz, then recovers", async () => {
    const bearer = { authorization: `Bearer ${token}` };
    expect(
      (await p.api.app.inject({ method: "GET", url: "/v1/workspaces/", headers: bearer })).statusCode,
    ).toBe(200);
    await closeDatabase();
    try {
      for (const url of ["/v1/workspaces/", "/v1/usage/summary", "/v1/usage/export.csv"]) {
        const res = await p.api.app.inject({ method: "GET", url, headers: bearer });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(503);
        expect(res.headers["retry-after"]).toBe("1");
        expect(res.json()).toEqual({
          error: { code: "database_unavailable", message: "The database is unavailable. Please try again." },
        });
      }
      const ready = await p.api.app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers["retry-after"]).toBe("1");
      expect(ready.json()).toMatchObject({ status: "unavailable", reason: "The database is not reachable." });
      expect(ready.json().code).toMatch(/^(55000|57P01|08\w{3}|ECONNRESET)$/);
      expect(ready.body).not.toContain(dbName);
      expect(ready.body).not.toContain("accepting");
    } finally {
      await openDatabase();
    }
    // The pool replaces its broken connections: the next calls work again.
    let status = 0;
    for (let i = 0; i < 5 && status !== 200; i++)
      status = (await p.api.app.inject({ method: "GET", url: "/v1/workspaces/", headers: bearer }))
        .statusCode;
    expect(status).toBe(200);
    expect((await p.api.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });
});
