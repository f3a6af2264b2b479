import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, waitFor } from "./cli-process";

// The operator CLI's ingest-key commands, on the embedded database: through the running server
// while it runs (PGlite admits one process), on the database itself once it has stopped.

const PORT = 3394;
const API = `http://127.0.0.1:${PORT}`;

const run = runCli;

async function cli(env: Record<string, string>, args: string[]) {
  const r = run(env, ["ingest-key", ...args]);
  const code = await r.exited;
  return { code, out: r.out(), err: r.err() };
}

const dataDir = mkdtempSync(join(tmpdir(), "eval-console-ingest-key-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const token = (text: string) => /eci_[A-Za-z0-9_-]{43}/.exec(text)?.[0] ?? "";

const send = (key: string, eventId: string) =>
  fetch(`${API}/v1/usage/events`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({
      events: [
        {
          event_id: eventId,
          occurred_at: new Date().toISOString(),
          operation: "generation",
          eval_type: "safety",
        },
      ],
    }),
  });

describe("ingest-key CLI on the embedded database", () => {
  it("creates, lists and revokes keys through the running server, then on the database", async () => {
    const env = {
      DATA_DIR: dataDir,
      PORT: String(PORT),
      AUTH_PORT: String(PORT + 1),
      DEMO_PASSWORD: "cli-demo-password",
      DEMO_EVENTS: "200",
    };
    // The server logs at info (its JSON request log too), to see that no token reaches the log.
    const server = run({ ...env, LOG_LEVEL: "info" }, ["serve"]);
    try {
      await waitFor(() => server.out().includes("Eval Console is running"), 90_000);
      // A fresh start keeps a demo ingestion key in an owner-only file and prints only where it
      // is: the output is a log stream, and no token appears in it.
      const keyFile = join(dataDir, "demo-ingest-key");
      expect(server.out()).toContain(
        `Demo ingestion key for Acme AI: in ${keyFile} (owner-only; \`ingest-key create\` makes more)`,
      );
      expect(`${server.out()}${server.err()}`).not.toMatch(/eci_/);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(readdirSync(dataDir).filter((f) => f.startsWith("demo-ingest-key"))).toEqual([
        "demo-ingest-key",
      ]);
      const demoKey = readFileSync(keyFile, "utf8").trim();
      expect(demoKey).toMatch(/^eci_[A-Za-z0-9_-]{43}$/);
      const demo = await send(demoKey, "cli-demo-1");
      expect(demo.status).toBe(200);
      expect(await demo.json()).toMatchObject({ accepted: 1 });
      const runFile = join(dataDir, "api-server.json");
      expect(statSync(runFile).mode & 0o077).toBe(0);

      const created = await cli(env, ["create", "--org", "acme-ai", "--name", "ci runner"]);
      expect(created.code, created.err).toBe(0);
      expect(created.out).toMatch(/Ingestion key [0-9a-f-]{36} "ci runner" created, for organization /);
      const ciKey = token(created.out);
      const ciUuid = /Ingestion key ([0-9a-f-]{36})/.exec(created.out)?.[1] ?? "";
      expect((await send(ciKey, "cli-ci-1")).status).toBe(200);

      const listed = await cli(env, ["list"]);
      expect(listed.code, listed.err).toBe(0);
      expect(listed.out).toContain("Demo eval service");
      expect(listed.out).toContain(ciUuid);
      expect(listed.out).not.toContain("eci_");

      const revoked = await cli(env, ["revoke", ciUuid]);
      expect(revoked.code, revoked.err).toBe(0);
      expect(revoked.out).toContain(`Ingestion key ${ciUuid} "ci runner" is revoked.`);
      // The running server refuses it at once.
      const refused = await send(ciKey, "cli-ci-2");
      expect(refused.status).toBe(401);
      const again = await cli(env, ["revoke", ciUuid]);
      expect(again.code).toBe(1);
      expect(again.err.trim()).toBe("The ingestion key is already revoked.");
      expect((await send(demoKey, "cli-demo-2")).status).toBe(200);
      // Nor did serving, creating or revoking keys put one in the server's output.
      expect(`${server.out()}${server.err()}`).not.toMatch(/eci_/);
    } finally {
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    }
    expect(existsSync(join(dataDir, "api-server.json"))).toBe(false);

    // Stopped: the CLI opens the database itself.
    const all = await cli(env, ["create"]);
    expect(all.code, all.err).toBe(0);
    expect(all.out).toContain('"Ingestion key" created, for all organizations.');
    const listed = await cli(env, ["list"]);
    expect(listed.out.split("\n").filter((l) => /^[0-9a-f]{8}-/.test(l))).toHaveLength(3);
    expect(listed.out).toMatch(
      /ci runner\s+[0-9a-f-]{36}\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+\d{4}-/,
    );
    const unknown = await cli(env, ["revoke", "00000000-0000-4000-8000-000000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err.trim()).toBe("No ingestion key 00000000-0000-4000-8000-000000000000.");
    const bad = await cli(env, ["revoke", "nope"]);
    expect(bad.code).toBe(2);
  }, 240_000);
});
