import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/platform/config";

const fails = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("configuration", () => {
  it("defaults to the embedded database and local ports", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      authPort: 3001,
      publicUrl: "http://localhost:3000",
      authPublicUrl: "http://localhost:3001",
      apiPublicUrl: "http://localhost:3000",
      database: { kind: "pglite", dataDir: "./data" },
      accessTokenTtlSeconds: 1800,
    });
    expect(c.allowedOrigins).toEqual(["http://localhost:3000"]);
  });

  it("derives public URLs from the ports and switches to PostgreSQL with DATABASE_URL", () => {
    const c = loadConfig({
      PORT: "4000",
      AUTH_PORT: "4001",
      DATABASE_URL: "postgres://u@db:5432/app",
      ALLOWED_RETURN_ORIGINS: "http://localhost:5173/, https://x.example",
    });
    expect(c.publicUrl).toBe("http://localhost:4000");
    expect(c.authPublicUrl).toBe("http://localhost:4001");
    expect(c.database).toEqual({ kind: "postgres", url: "postgres://u@db:5432/app", readTimeoutMs: 20_000 });
    expect(c.allowedOrigins).toEqual(["http://localhost:4000", "http://localhost:5173", "https://x.example"]);
  });

  it("takes a read replica (DATABASE_READ_URL) only alongside its primary (DATABASE_URL)", () => {
    const c = loadConfig({
      DATABASE_URL: "postgres://u@db:5432/app",
      DATABASE_READ_URL: "postgres://u@replica:5432/app",
    });
    expect(c.database).toEqual({
      kind: "postgres",
      url: "postgres://u@db:5432/app",
      readUrl: "postgres://u@replica:5432/app",
      readTimeoutMs: 20_000,
    });
    expect(loadConfig({ READ_TIMEOUT_SECONDS: "2.5" }).database.readTimeoutMs).toBe(2_500);
    expect(fails({ READ_TIMEOUT_SECONDS: "0" })).toContain("READ_TIMEOUT_SECONDS must be at least 0.1");
    expect(fails({ DATABASE_READ_URL: "postgres://u@replica:5432/app" })).toContain(
      "DATABASE_READ_URL (a read replica) needs DATABASE_URL",
    );
    expect(fails({ DATABASE_URL: "postgres://u@db/app", DATABASE_READ_URL: "http://replica" })).toContain(
      "DATABASE_READ_URL must look like postgres://",
    );
  });

  it("refuses private webhook URLs and retries after 30 s unless WEBHOOK_* settings say otherwise", () => {
    const defaults = {
      concurrency: 32,
      maxInFlightPerOrg: 8,
      maxInFlightPerEndpoint: 4,
      breakerFailures: 5,
      breakerCooldownSeconds: 60,
      sendRateLimitPerOrg: 30,
    };
    expect(loadConfig({}).webhooks).toEqual({ allowPrivateUrls: false, retryBaseSeconds: 30, ...defaults });
    expect(
      loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_BASE_SECONDS: "0.5" }).webhooks,
    ).toEqual({ allowPrivateUrls: true, retryBaseSeconds: 0.5, ...defaults });
    expect(fails({ WEBHOOK_ALLOW_PRIVATE_URLS: "yes" })).toMatch(
      /WEBHOOK_ALLOW_PRIVATE_URLS must be true or false/,
    );
    expect(fails({ WEBHOOK_RETRY_BASE_SECONDS: "0" })).toMatch(
      /WEBHOOK_RETRY_BASE_SECONDS must be at least 0.01/,
    );
    expect(fails({ WEBHOOK_RETRY_BASE_SECONDS: "soon" })).toMatch(
      /WEBHOOK_RETRY_BASE_SECONDS must be a number/,
    );
  });

  it("shares webhook deliveries fairly with the WEBHOOK_* caps, breaker and test/retry limit", () => {
    expect(
      loadConfig({
        WEBHOOK_CONCURRENCY: "64",
        WEBHOOK_MAX_IN_FLIGHT_PER_ORG: "4",
        WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: "1",
        WEBHOOK_BREAKER_FAILURES: "0",
        WEBHOOK_BREAKER_COOLDOWN_SECONDS: "0.5",
        WEBHOOK_SEND_RATE_LIMIT_PER_ORG: "0",
      }).webhooks,
    ).toEqual({
      allowPrivateUrls: false,
      retryBaseSeconds: 30,
      concurrency: 64,
      maxInFlightPerOrg: 4,
      maxInFlightPerEndpoint: 1,
      breakerFailures: 0,
      breakerCooldownSeconds: 0.5,
      sendRateLimitPerOrg: 0,
    });
    expect(fails({ WEBHOOK_CONCURRENCY: "0" })).toMatch(/WEBHOOK_CONCURRENCY must be at least 1/);
    expect(fails({ WEBHOOK_MAX_IN_FLIGHT_PER_ORG: "0" })).toMatch(
      /WEBHOOK_MAX_IN_FLIGHT_PER_ORG must be at least 1/,
    );
    expect(fails({ WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: "1.5" })).toMatch(
      /WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT must be a whole number/,
    );
    expect(fails({ WEBHOOK_BREAKER_FAILURES: "-1" })).toMatch(
      /WEBHOOK_BREAKER_FAILURES must be 0 \(off\) or more/,
    );
    expect(fails({ WEBHOOK_BREAKER_COOLDOWN_SECONDS: "0" })).toMatch(
      /WEBHOOK_BREAKER_COOLDOWN_SECONDS must be at least 0.01/,
    );
    expect(fails({ WEBHOOK_SEND_RATE_LIMIT_PER_ORG: "many" })).toMatch(
      /WEBHOOK_SEND_RATE_LIMIT_PER_ORG must be a number/,
    );
  });

  it("treats empty values as unset, as in a copied .env.example", () => {
    expect(loadConfig({ DATABASE_URL: "", PORT: "" }).database.kind).toBe("pglite");
  });

  it("explains each bad value in one line", () => {
    const msg = fails({ DATABASE_URL: "mysql://nope", PORT: "99999" });
    expect(msg).not.toContain("\n");
    expect(msg).toContain("DATABASE_URL must look like postgres://user@host:5432/database");
    expect(msg).toContain('(got "mysql://nope")');
    expect(msg).toContain("PORT must be between 1 and 65535");
    expect(fails({ PORT: "3001" })).toContain("PORT and AUTH_PORT are both 3001");
    expect(fails({ PUBLIC_URL: "localhost:3000" })).toContain("PUBLIC_URL must");
    expect(fails({ AUTH_SECRET: "short" })).toContain("AUTH_SECRET must be at least 32 characters");
    expect(fails({ ACCESS_TOKEN_TTL_SECONDS: "60" })).toContain("must exceed 600");
    expect(fails({ USAGE_MAX_AGE_DAYS: "-1" })).toContain(
      "USAGE_MAX_AGE_DAYS must be 0 (no horizon) or more",
    );
    expect(fails({ USAGE_MAX_AGE_DAYS: "1.5" })).toContain(
      "USAGE_MAX_AGE_DAYS must be a whole number of days",
    );
    expect(loadConfig({}).usageMaxAgeDays).toBe(400);
  });

  it("trusts no proxy by default; TRUST_PROXY takes false, a hop count or a list of proxy addresses", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 127.0.0.1,::1,fd00::/8" }).trustProxy).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
      "::1",
      "fd00::/8",
    ]);
    for (const bad of ["true", "yes", "10.0.0.0/33", "10.0.0/8", "1.2.3.4,", "-1"]) {
      const msg = fails({ TRUST_PROXY: bad });
      expect(msg).not.toContain("\n");
      expect(msg).toContain("TRUST_PROXY must be false, a hop count such as 1, or a comma-separated list");
      expect(msg).toContain(`(got "${bad}")`);
    }
    expect(fails({ TRUST_PROXY: "100" })).toContain("TRUST_PROXY hop count must be 1-32");
  });
});
