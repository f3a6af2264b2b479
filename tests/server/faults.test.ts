import { createServer, type Server } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiService } from "../../server/api/service";
import { loadConfig } from "../../server/platform/config";
import { isDatabaseUnavailable } from "../../server/platform/database";
import { createHttpIdentityGateway } from "../../server/platform/identity-gateway-http";
import { accessToken, backends, PASSWORD, startProduct, type TestProduct } from "./harness";

// Faults: the product API on a host of its own whose identity service is unreachable (refused
// connections, or a host that accepts and never answers) answers 503 JSON within its timeout
// instead of hanging or blaming the caller's credentials.

describe.each(backends().slice(0, 1))("faults on $name", (backend) => {
  let p: TestProduct;
  let blackHole: Server;
  let blackHoleUrl = "";
  let token = "";

  beforeAll(async () => {
    p = await startProduct(backend);
    token = await accessToken(p, "admin@acme.test");
    // Accepts connections and never answers.
    blackHole = createServer(() => {});
    await new Promise<void>((r) => blackHole.listen(0, "127.0.0.1", r));
    const addr = blackHole.address();
    blackHoleUrl = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    blackHole?.close();
    await p?.dispose();
  });

  async function apiWithIdentityAt(identityUrl: string) {
    const config = loadConfig({ DEMO_PASSWORD: PASSWORD, CONSOLE_DIR: "./tests/server/fixtures/console" });
    const gateway = createHttpIdentityGateway({
      identityUrl,
      backendApiKey: "unused",
      issuer: config.authPublicUrl,
      timeoutMs: 1000,
    });
    return createApiService(config, p.database, gateway, pino({ level: "silent" }));
  }

  for (const where of ["refusing connections", "never answering"] as const) {
    it(`answers 503 JSON quickly when identity is ${where}`, async () => {
      const url = where === "refusing connections" ? "http://127.0.0.1:9" : blackHoleUrl;
      const { app } = await apiWithIdentityAt(url);
      try {
        for (const headers of [{ authorization: `Bearer ${token}` }, { "x-api-key": "k".repeat(40) }]) {
          const started = Date.now();
          const res = await app.inject({ method: "GET", url: "/v1/workspaces/", headers });
          const took = Date.now() - started;
          expect(res.statusCode, res.body).toBe(503);
          expect(res.json()).toEqual({
            error: {
              code: "identity_unavailable",
              message: "The identity service is unavailable. Please try again.",
            },
          });
          expect(took).toBeLessThan(3000);
        }
      } finally {
        await app.close();
      }
    });
  }
});

describe("database-unavailable errors", () => {
  const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: select 1"), { cause });
  it("are the connection failures, seen through Drizzle's wrapper", () => {
    for (const err of [
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      wrapped(new Error("Connection terminated unexpectedly")),
      wrapped(
        Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      ),
      wrapped(Object.assign(new Error("the database system is starting up"), { code: "57P03" })),
      wrapped(Object.assign(new Error("connection failure"), { code: "08006" })),
      wrapped(
        Object.assign(new Error("terminating connection due to crash of another server process"), {
          code: "57P02",
        }),
      ),
      Object.assign(new Error("sorry, too many clients already"), { code: "53300" }),
      Object.assign(new Error('database "x" is not currently accepting connections'), { code: "55000" }),
      new AggregateError([Object.assign(new Error("refused"), { code: "ECONNREFUSED" })]),
    ])
      expect(isDatabaseUnavailable(err), String(err)).toBe(true);
  });
  it("are not statement errors", () => {
    for (const err of [
      wrapped(Object.assign(new Error("duplicate key"), { code: "23505" })),
      wrapped(Object.assign(new Error("syntax error"), { code: "42601" })),
      // 55000 is also "object not in prerequisite state" for statements: only the connection refusal counts.
      wrapped(Object.assign(new Error("currval of sequence is not yet defined"), { code: "55000" })),
      new Error("boom"),
      null,
      "Connection terminated",
    ])
      expect(isDatabaseUnavailable(err), String(err)).toBe(false);
  });
});
