// The configuration of a product started for a benchmark: silent, on 127.0.0.1, with its data in
// `dataDir` and on PostgreSQL when `databaseUrl` is given (PGlite otherwise).
import { loadConfig } from "../server/platform/config";

export function loadBenchConfig(opts: {
  dataDir: string;
  password: string;
  databaseUrl?: string;
  env?: Record<string, string>;
}) {
  return loadConfig({
    DATA_DIR: opts.dataDir,
    ...opts.env,
    DEMO_PASSWORD: opts.password,
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    // Benchmarks measure throughput: the /v1 rate limits are off unless the environment sets them
    // (e.g. API_RATE_LIMIT_PER_CREDENTIAL=1000000000 to measure what counting costs).
    API_RATE_LIMIT_PER_CREDENTIAL: process.env.API_RATE_LIMIT_PER_CREDENTIAL ?? "0",
    API_RATE_LIMIT_PER_ORG: process.env.API_RATE_LIMIT_PER_ORG ?? "0",
    INGEST_RATE_LIMIT_PER_KEY: process.env.INGEST_RATE_LIMIT_PER_KEY ?? "0",
    INGEST_RATE_LIMIT_PER_ORG: process.env.INGEST_RATE_LIMIT_PER_ORG ?? "0",
    // Benchmarks send usage on fixed dates (the same figures on every run), some older than the
    // acceptance horizon: it is off unless the environment sets it.
    USAGE_MAX_AGE_DAYS: process.env.USAGE_MAX_AGE_DAYS ?? "0",
  });
}
