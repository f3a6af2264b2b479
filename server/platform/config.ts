import { z } from "zod";
import { AUDIT_DEFAULT_RETENTION_DAYS } from "../../contract/audit-log";
import { ConfigError, dnsServer, parseSecretsKeys, parseTrustProxy, type TrustProxy } from "./config-values";

/**
 * USAGE_MAX_AGE_DAYS by default: how many days back (before today, UTC) an event's occurred_at may
 * lie and still be accepted. Past it an event is rejected, so its idempotency key can go
 * (metering event-key retention) without a resend ever being counted twice. 400 days: a year of late
 * usage and corrections, plus a monthly cycle.
 */
export const DEFAULT_USAGE_MAX_AGE_DAYS = 400;

export { ConfigError, decodeSecretsKey } from "./config-values";

const port = (name: string, fallback: number) =>
  z.coerce
    .number({ message: `${name} must be a port number` })
    .int(`${name} must be a whole number`)
    .min(1, `${name} must be between 1 and 65535`)
    .max(65535, `${name} must be between 1 and 65535`)
    .default(fallback);

/**
 * A number setting counted in `unit` ("seconds", "requests per minute"), with messages that name
 * the setting and its unit; a bound of 0 means the setting can be turned off.
 */
const amount = (
  name: string,
  unit: string,
  o: { whole?: boolean; min: number; minText?: string; max?: number; maxText?: string },
  fallback: number,
) => {
  let n = z.coerce.number({ message: `${name} must be a number of ${unit}` });
  // Days are counted whole by their name; other units say only "a whole number".
  if (o.whole) n = n.int(`${name} must be a whole number${unit === "days" ? " of days" : ""}`);
  n = n.min(o.min, `${name} must be ${o.minText ?? (o.min === 0 ? "0 (off) or more" : `at least ${o.min}`)}`);
  if (o.max !== undefined) n = n.max(o.max, `${name} must be at most ${o.maxText ?? o.max}`);
  return n.default(fallback);
};

/** A rate limit: requests per minute, 0 for none. */
const perMinute = (name: string, fallback: number) =>
  amount(name, "requests per minute", { whole: true, min: 0 }, fallback);

const httpUrl = (name: string) =>
  z
    .string()
    .url(`${name} must be an absolute http(s) URL, e.g. http://localhost:3000`)
    .refine((v) => /^https?:$/.test(new URL(v).protocol), `${name} must use http or https`)
    .optional();

const postgresUrl = (name: string) =>
  z
    .string()
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === "postgres:" || u.protocol === "postgresql:") && u.hostname !== "";
      } catch {
        return false;
      }
    }, `${name} must look like postgres://user@host:5432/database`)
    .optional();

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: port("PORT", 3000),
  AUTH_PORT: port("AUTH_PORT", 3001),
  PUBLIC_URL: httpUrl("PUBLIC_URL"),
  AUTH_PUBLIC_URL: httpUrl("AUTH_PUBLIC_URL"),
  API_PUBLIC_URL: httpUrl("API_PUBLIC_URL"),
  ALLOWED_RETURN_ORIGINS: z.string().default(""),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: postgresUrl("DATABASE_URL"),
  DATABASE_READ_URL: postgresUrl("DATABASE_READ_URL"),
  AUTH_SECRET: z.string().min(32, "AUTH_SECRET must be at least 32 characters").optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(660, "ACCESS_TOKEN_TTL_SECONDS must exceed 600 (clients refresh 10 minutes before expiry)")
    .max(86_400)
    .default(1800),
  DEMO_PASSWORD: z.string().min(8, "DEMO_PASSWORD must be at least 8 characters").optional(),
  SEED_DEMO: z.enum(["auto", "always", "never"]).default("auto"),
  SMTP_URL: z
    .string()
    .refine(
      (v) => URL.canParse(v) && /^smtps?:$/.test(new URL(v).protocol),
      "SMTP_URL must look like smtp://user:pass@host:587",
    )
    .optional(),
  EMAIL_FROM: z.string().default("Eval Console <no-reply@localhost>"),
  BACKEND_API_KEY: z.string().min(32, "BACKEND_API_KEY must be at least 32 characters").optional(),
  DNS_RESOLVER: z
    .string()
    .refine(
      (v) => dnsServer(v) !== null,
      "DNS_RESOLVER must be an IP address with an optional port, e.g. 127.0.0.1:5353 or [::1]:53",
    )
    .optional(),
  CONSOLE_DIR: z.string().default("./dist"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  API_RATE_LIMIT_PER_CREDENTIAL: perMinute("API_RATE_LIMIT_PER_CREDENTIAL", 6_000),
  API_RATE_LIMIT_PER_ORG: perMinute("API_RATE_LIMIT_PER_ORG", 30_000),
  AUDIT_RETENTION_DAYS: amount(
    "AUDIT_RETENTION_DAYS",
    "days",
    { whole: true, min: 1, max: 36_500, maxText: "36500 (100 years)" },
    AUDIT_DEFAULT_RETENTION_DAYS,
  ),
  USAGE_MAX_AGE_DAYS: amount(
    "USAGE_MAX_AGE_DAYS",
    "days",
    { whole: true, min: 0, minText: "0 (no horizon) or more", max: 36_500, maxText: "36500 (100 years)" },
    DEFAULT_USAGE_MAX_AGE_DAYS,
  ),
  INGEST_RATE_LIMIT_PER_KEY: perMinute("INGEST_RATE_LIMIT_PER_KEY", 6_000),
  INGEST_RATE_LIMIT_PER_ORG: perMinute("INGEST_RATE_LIMIT_PER_ORG", 12_000),
  READ_TIMEOUT_SECONDS: amount("READ_TIMEOUT_SECONDS", "seconds", { min: 0.1, max: 600 }, 20),
  WEBHOOK_ALLOW_PRIVATE_URLS: z
    .enum(["true", "false"], { message: "WEBHOOK_ALLOW_PRIVATE_URLS must be true or false" })
    .default("false"),
  WEBHOOK_RETRY_BASE_SECONDS: amount("WEBHOOK_RETRY_BASE_SECONDS", "seconds", { min: 0.01, max: 3600 }, 30),
  WEBHOOK_CONCURRENCY: amount("WEBHOOK_CONCURRENCY", "deliveries", { whole: true, min: 1, max: 1000 }, 32),
  WEBHOOK_MAX_IN_FLIGHT_PER_ORG: amount(
    "WEBHOOK_MAX_IN_FLIGHT_PER_ORG",
    "deliveries",
    { whole: true, min: 1, max: 1000 },
    8,
  ),
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: amount(
    "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT",
    "deliveries",
    { whole: true, min: 1, max: 1000 },
    4,
  ),
  WEBHOOK_BREAKER_FAILURES: amount(
    "WEBHOOK_BREAKER_FAILURES",
    "failed attempts",
    { whole: true, min: 0, max: 1000 },
    5,
  ),
  WEBHOOK_BREAKER_COOLDOWN_SECONDS: amount(
    "WEBHOOK_BREAKER_COOLDOWN_SECONDS",
    "seconds",
    { min: 0.01, max: 3600 },
    60,
  ),
  WEBHOOK_SEND_RATE_LIMIT_PER_ORG: perMinute("WEBHOOK_SEND_RATE_LIMIT_PER_ORG", 30),
});

export type Config = {
  env: "development" | "production" | "test";
  host: string;
  port: number;
  authPort: number;
  /** Origin of the console (no trailing slash). */
  publicUrl: string;
  /** Origin of the identity service; also the `iss` of access tokens. */
  authPublicUrl: string;
  /** Base address of the product API as the browser sees it. */
  apiPublicUrl: string;
  /** Origins allowed as `rt` return targets and for CORS with credentials. */
  allowedOrigins: string[];
  /**
   * The primary database. `readUrl` (DATABASE_READ_URL): a streaming replica of it that serves the
   * dashboard's usage reads, which may lag the primary by the replication delay.
   */
  database: ({ kind: "pglite"; dataDir: string } | { kind: "postgres"; url: string; readUrl?: string }) & {
    /** READ_TIMEOUT_SECONDS: the longest a dashboard read (report, export, search) may run. */
    readTimeoutMs: number;
  };
  authSecret: string | undefined;
  accessTokenTtlSeconds: number;
  demoPassword: string | undefined;
  seedDemo: "auto" | "always" | "never";
  /** SMTP server for identity emails; without it emails go to the outbox table and the log. */
  smtpUrl: string | undefined;
  emailFrom: string;
  /** Server-to-server secret guarding the identity backend API; generated and stored when unset. */
  backendApiKey: string | undefined;
  /** DNS server for domain-ownership checks (node:dns setServers form); the system's when unset. */
  dnsResolver: string | undefined;
  consoleDir: string;
  logLevel: string;
  /** /v1 requests per minute per credential and per organization (0: off), shared by every API process. */
  apiRateLimits: { perCredential: number; perOrg: number };
  /** POST /v1/usage/events calls per minute per ingestion key and per organization (0: off). */
  ingestRateLimits: { perKey: number; perOrg: number };
  /** Audit log entries older than this many days are purged (daily, and by `audit purge`). */
  auditRetentionDays: number;
  /**
   * Usage older than this many days is rejected, and the idempotency keys of events older than
   * that (plus a day) are deleted daily; 0: every date accepted, every key kept (docs/pricing.md).
   */
  usageMaxAgeDays: number;
  /**
   * Webhook deliveries (docs/webhooks.md): whether endpoint URLs may resolve to loopback, private
   * or link-local addresses (off by default: a URL must not reach into the servers' own network),
   * and the first retry's delay, which later retries multiply (30 s, 2 min, 10 min, 1 h, 6 h…);
   * attempts in flight at once per API process, per organization and per endpoint (the last two
   * across every process); the circuit breaker (failed attempts in a row that pause an endpoint, 0:
   * off, and its first cool-down); and test/retry calls per minute per organization (0: off).
   */
  webhooks: {
    allowPrivateUrls: boolean;
    retryBaseSeconds: number;
    concurrency: number;
    maxInFlightPerOrg: number;
    maxInFlightPerEndpoint: number;
    breakerFailures: number;
    breakerCooldownSeconds: number;
    sendRateLimitPerOrg: number;
  };
  /**
   * Which proxies in front of the servers may set the client address and protocol
   * (X-Forwarded-For / -Proto); false trusts none, so per-IP limits count the socket's peer.
   */
  trustProxy: TrustProxy;
  /**
   * Every variable that is set (empty ones dropped), for the settings a service reads on its own:
   * identity's social sign-in providers (<PROVIDER>_CLIENT_ID/_SECRET).
   */
  environment: Readonly<Record<string, string>>;
  /** DATA_DIR: the embedded database and, when SECRETS_KEY is unset, the generated secrets.key. */
  dataDir: string;
  /** SECRETS_KEY: encrypts the stored instance secrets (AES-256-GCM); unset = a key file in dataDir. */
  secretsKey: Buffer | undefined;
  /** SECRETS_KEY_PREVIOUS: older keys still accepted for reading; values are re-encrypted at start. */
  secretsKeysPrevious: Buffer[];
};

const origin = (url: string) => new URL(url).origin;

/** Validates the environment and resolves defaults; throws ConfigError with one line per problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset", as in a copied .env.example.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = String(i.path[0] ?? "config");
      const got = cleaned[key];
      return `${i.message}${got === undefined ? "" : ` (got "${got}")`}`;
    });
    throw new ConfigError(`Configuration error: ${lines.join("; ")}`);
  }
  const e = parsed.data;
  const trustProxy = parseTrustProxy(cleaned.TRUST_PROXY);
  const secrets = parseSecretsKeys(cleaned.SECRETS_KEY, cleaned.SECRETS_KEY_PREVIOUS);
  // A replica of the embedded database cannot exist: PGlite lives inside this one process.
  if (e.DATABASE_READ_URL && !e.DATABASE_URL)
    throw new ConfigError(
      "Configuration error: DATABASE_READ_URL (a read replica) needs DATABASE_URL (its primary) to be set too",
    );
  if (e.PORT === e.AUTH_PORT)
    throw new ConfigError(`Configuration error: PORT and AUTH_PORT are both ${e.PORT}`);
  const publicUrl = origin(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  const authPublicUrl = origin(e.AUTH_PUBLIC_URL ?? `http://localhost:${e.AUTH_PORT}`);
  const apiPublicUrl = (e.API_PUBLIC_URL ?? publicUrl).replace(/\/+$/, "");
  const extra = e.ALLOWED_RETURN_ORIGINS.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of extra) {
    if (!URL.canParse(o))
      throw new ConfigError(`Configuration error: ALLOWED_RETURN_ORIGINS has "${o}", not a URL`);
  }
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    authPort: e.AUTH_PORT,
    publicUrl,
    authPublicUrl,
    apiPublicUrl,
    allowedOrigins: [...new Set([publicUrl, origin(apiPublicUrl), ...extra.map(origin)])],
    database: e.DATABASE_URL
      ? {
          kind: "postgres",
          url: e.DATABASE_URL,
          ...(e.DATABASE_READ_URL ? { readUrl: e.DATABASE_READ_URL } : {}),
          readTimeoutMs: Math.round(e.READ_TIMEOUT_SECONDS * 1000),
        }
      : { kind: "pglite", dataDir: e.DATA_DIR, readTimeoutMs: Math.round(e.READ_TIMEOUT_SECONDS * 1000) },
    authSecret: e.AUTH_SECRET,
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    demoPassword: e.DEMO_PASSWORD,
    seedDemo: e.SEED_DEMO,
    smtpUrl: e.SMTP_URL,
    emailFrom: e.EMAIL_FROM,
    backendApiKey: e.BACKEND_API_KEY,
    dnsResolver: e.DNS_RESOLVER ? (dnsServer(e.DNS_RESOLVER) ?? undefined) : undefined,
    consoleDir: e.CONSOLE_DIR,
    logLevel: e.LOG_LEVEL,
    apiRateLimits: { perCredential: e.API_RATE_LIMIT_PER_CREDENTIAL, perOrg: e.API_RATE_LIMIT_PER_ORG },
    ingestRateLimits: { perKey: e.INGEST_RATE_LIMIT_PER_KEY, perOrg: e.INGEST_RATE_LIMIT_PER_ORG },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    usageMaxAgeDays: e.USAGE_MAX_AGE_DAYS,
    webhooks: {
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === "true",
      retryBaseSeconds: e.WEBHOOK_RETRY_BASE_SECONDS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      maxInFlightPerOrg: e.WEBHOOK_MAX_IN_FLIGHT_PER_ORG,
      maxInFlightPerEndpoint: e.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      breakerFailures: e.WEBHOOK_BREAKER_FAILURES,
      breakerCooldownSeconds: e.WEBHOOK_BREAKER_COOLDOWN_SECONDS,
      sendRateLimitPerOrg: e.WEBHOOK_SEND_RATE_LIMIT_PER_ORG,
    },
    trustProxy,
    environment: cleaned,
    dataDir: e.DATA_DIR,
    ...secrets,
  };
}
