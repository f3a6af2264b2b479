// Benchmarks of the sign-in path, over real HTTP on the embedded database:
//   GET /healthz (baseline: framework + network only), POST /login (password hashing + session
//   insert), GET /api/v1/refresh_token (session
//   lookup + memberships + RS256 signing), GET /v1/accounts/me (offline token check + queries).
// Prints requests/s, p50 and p95 latency, and each figure's ratio to the baseline run side by side.
// Saves its figures as bench/results/signin.pglite.json (bench/results.ts).
// Usage: npx tsx bench/run.ts [seconds concurrency]   (`npm run bench` runs every benchmark)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { buildProduct } from "../server/app";
import { loadConfig } from "../server/platform/config";
import { startResults } from "./results";

const seconds = Number(process.argv[2] ?? 3);
const concurrency = Number(process.argv[3] ?? 8);

type Result = { name: string; rps: number; p50: number; p95: number; p99: number; errors: number };

async function load(name: string, url: string, headers: Record<string, string>): Promise<Result> {
  return measure(name, () => fetch(url, { headers }));
}

/** Runs `call` from `concurrency` clients for `seconds`; a non-2xx/3xx answer counts as an error. */
async function measure(name: string, call: () => Promise<Response>): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const res = await call();
      await res.arrayBuffer();
      if (res.status >= 400) errors++;
      latencies.push(performance.now() - t);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { name, rps: latencies.length / elapsed, p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), errors };
}

async function main() {
  const saved = startResults("signin", "pglite", { seconds, concurrency });
  const dir = mkdtempSync(join(tmpdir(), "eval-console-bench-"));
  const t0 = performance.now();
  const config = loadConfig({
    DATA_DIR: dir,
    PORT: "3500",
    AUTH_PORT: "3501",
    DEMO_PASSWORD: "bench-password",
    HOST: "127.0.0.1",
    // The sign-in benchmark gives each request its own client address in X-Forwarded-For.
    TRUST_PROXY: "loopback",
    // Benchmarks measure throughput: the /v1 rate limits are off unless the environment sets them
    // (e.g. API_RATE_LIMIT_PER_CREDENTIAL=1000000000 to measure what counting costs).
    API_RATE_LIMIT_PER_CREDENTIAL: process.env.API_RATE_LIMIT_PER_CREDENTIAL ?? "0",
    API_RATE_LIMIT_PER_ORG: process.env.API_RATE_LIMIT_PER_ORG ?? "0",
    INGEST_RATE_LIMIT_PER_KEY: process.env.INGEST_RATE_LIMIT_PER_KEY ?? "0",
    INGEST_RATE_LIMIT_PER_ORG: process.env.INGEST_RATE_LIMIT_PER_ORG ?? "0",
  });
  const product = await buildProduct(config, pino({ level: "silent" }));
  await product.seed(false);
  await product.identity.app.listen({ host: "127.0.0.1", port: 3501 });
  await product.api.app.listen({ host: "127.0.0.1", port: 3500 });
  const startup = performance.now() - t0;
  try {
    const login = await fetch("http://127.0.0.1:3501/login", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: config.authPublicUrl },
      body: "email=admin%40acme.test&password=bench-password",
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const auth = await (
      await fetch("http://127.0.0.1:3501/api/v1/refresh_token", { headers: { cookie } })
    ).json();
    const bearer = { authorization: `Bearer ${auth.access_token}` };

    // Sign-ins are rate-limited per address and per account (that is the product working), so the
    // benchmark signs in many distinct users from distinct client addresses.
    const users = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        product.identity.admin.createUser({ email: `bench${i}@acme.test`, password: "bench-password" }),
      ),
    );
    let n = 0;
    const signIn = () => {
      const i = n++;
      return fetch("http://127.0.0.1:3501/login", {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: config.authPublicUrl,
          "x-forwarded-for": `198.18.${(i >> 8) & 255}.${i & 255}`,
        },
        body: `email=${encodeURIComponent(users[i % users.length]!.email)}&password=bench-password`,
      });
    };
    const results = [
      await load("GET /healthz (baseline)", "http://127.0.0.1:3500/healthz", {}),
      await measure("POST /login (password)", signIn),
      await load("GET /api/v1/refresh_token", "http://127.0.0.1:3501/api/v1/refresh_token", { cookie }),
      await load("GET /v1/accounts/me", "http://127.0.0.1:3500/v1/accounts/me", bearer),
    ];
    const base = results[0]!;
    console.log(`cold start to listening (fresh PGlite, migrations, demo seed): ${startup.toFixed(0)} ms`);
    console.log(`${seconds}s per endpoint, ${concurrency} concurrent clients, PGlite`);
    console.log(
      "endpoint".padEnd(28),
      "req/s".padStart(8),
      "p50 ms".padStart(8),
      "p95 ms".padStart(8),
      "p99 ms".padStart(8),
      "  vs baseline (req/s, p50)",
    );
    for (const r of results) {
      console.log(
        r.name.padEnd(28),
        r.rps.toFixed(0).padStart(8),
        r.p50.toFixed(2).padStart(8),
        r.p95.toFixed(2).padStart(8),
        r.p99.toFixed(2).padStart(8),
        `  ${(r.rps / base.rps).toFixed(2)}x, ${(r.p50 / base.p50).toFixed(1)}x${r.errors ? `  (${r.errors} errors)` : ""}`,
      );
    }
    const ids = ["healthz", "login", "refresh-token", "accounts-me"];
    saved.save(
      results.map((r, i) => ({
        id: ids[i]!,
        label: r.name.replace(" (baseline)", ""),
        value: Math.round(r.rps),
        unit: "req/s",
        ...(i > 0 ? { ratio: r.rps / base.rps, baseline: "GET /healthz" } : {}),
      })),
      [`cold start to listening ${startup.toFixed(0)} ms`],
    );
  } finally {
    await product.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
