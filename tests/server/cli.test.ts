import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { runCli, serverCommand, waitFor } from "./cli-process";

const run = (env: Record<string, string>, args = ["serve"]) => runCli(env, args);

const dirs: string[] = [];
// A server left running by a failed test would hold its ports for every later run.
const children: ChildProcess[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "eval-console-cli-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("server CLI", () => {
  it("stops with one clear line on a malformed DATABASE_URL", async () => {
    const r = run({ DATABASE_URL: "not-a-url" });
    expect(await r.exited).toBe(1);
    expect(r.err().trim()).toBe(
      'Configuration error: DATABASE_URL must look like postgres://user@host:5432/database (got "not-a-url")',
    );
  });

  it("stops with one clear line when a port is taken", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "0.0.0.0", () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run({ DATA_DIR: tempDir(), PORT: String(port), AUTH_PORT: String(port + 1) });
      expect(await r.exited).toBe(1);
      expect(r.err().trim()).toBe(
        `Cannot start: port ${port} is already in use (set PORT / AUTH_PORT to free ports).`,
      );
    } finally {
      blocker.close();
    }
  });

  it("serves with a seeded demo, prints the sign-in, and shuts down cleanly on SIGTERM", async () => {
    const dataDir = tempDir();
    // A small demo usage set: this test is about start-up and shutdown, not the seed size.
    const r = run({
      DATA_DIR: dataDir,
      PORT: "3390",
      AUTH_PORT: "3391",
      DEMO_PASSWORD: "cli-demo-password",
      DEMO_EVENTS: "1000",
    });
    const child: ChildProcess = r.child;
    children.push(child);
    // Start-up migrates and seeds: slow on a busy machine.
    await waitFor(() => r.out().includes("Eval Console is running"), 120_000);
    expect(r.out()).toContain("admin@acme.test");
    // A password set through DEMO_PASSWORD is the operator's: the banner says where it is, not what.
    expect(r.out()).toContain("password: the one set in DEMO_PASSWORD (not printed)");
    expect(r.out()).not.toContain("cli-demo-password");
    const ready = await fetch("http://127.0.0.1:3390/readyz");
    expect(await ready.json()).toEqual({ status: "ready", database: "pglite" });
    const login = await fetch("http://127.0.0.1:3391/login");
    expect(login.status).toBe(200);
    child.kill("SIGTERM");
    expect(await r.exited).toBe(0);
  }, 180_000);

  it("runs as built JavaScript, applying the migrations shipped beside the bundle", async () => {
    // The suites' commands run the bundle scripts/build-server.mjs made in the global setup.
    expect(serverCommand(["migrate"])[1]).toEqual([
      "--enable-source-maps",
      inject("serverBundle"),
      "migrate",
    ]);
    const r = runCli({ DATA_DIR: tempDir() }, ["migrate"]);
    expect(await r.exited, r.err()).toBe(0);
    expect(r.out()).toContain("Migrations applied.");
  }, 120_000);

  it("prints usage for an unknown command", async () => {
    const r = run({}, ["frobnicate"]);
    expect(await r.exited).toBe(2);
    expect(r.err()).toContain('Unknown command "frobnicate"');
  });
});
