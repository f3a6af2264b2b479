import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../server/platform/config";
import { LOCK_FILE, processStart } from "../../server/platform/data-dir-lock";
import { type Database, isUniqueViolation, openDatabase } from "../../server/platform/database";
import { runCli, waitFor } from "./cli-process";

// The embedded database as the product runs it: PGlite in a directory, in a worker thread,
// locked to one process.

const dirs: string[] = [];
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "eval-console-embedded-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const rows = async (db: Database, query: ReturnType<typeof sql>) =>
  ((await db.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows;

/** A pid that is not running: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((r) => child.on("exit", r));
  return child.pid ?? 999_999;
}

describe("the embedded database in a directory", () => {
  it("commits, rolls back and reports PostgreSQL's errors through its worker thread", async () => {
    const database = await openDatabase({ kind: "pglite", dataDir: newDir() });
    try {
      await database.migrate();
      await database.db.execute(sql`create table t (id int primary key, at timestamptz not null)`);
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into t values (1, '2026-01-02T03:04:05Z')`);
        // A nested transaction is a savepoint: its failure is undone, the outer one goes on.
        await tx
          .transaction(async (inner) => {
            await inner.execute(sql`insert into t values (2, now())`);
            throw new Error("undo the inner one");
          })
          .catch(() => {});
      });
      await expect(
        database.db.transaction(async (tx) => {
          await tx.execute(sql`insert into t values (3, now())`);
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      const err = await database.db.execute(sql`insert into t values (1, now())`).catch((e) => e);
      expect(isUniqueViolation(err)).toBe(true);
      // Timestamps come back as PostgreSQL's text, as Drizzle reads them in process.
      expect(await rows(database, sql`select id, at from t order by id`)).toEqual([
        { id: 1, at: "2026-01-02 03:04:05+00" },
      ]);
    } finally {
      await database.close();
    }
  });

  it("keeps this thread's timers running while a long statement runs", async () => {
    const database = await openDatabase({ kind: "pglite", dataDir: newDir() });
    try {
      let fired = 0;
      const timer = setInterval(() => fired++, 5);
      let finishedWhileRunning = -1;
      await database.db.execute(sql`select count(*) from generate_series(1, 4000000)`);
      finishedWhileRunning = fired;
      clearInterval(timer);
      // In this thread the statement would have held the event loop: no tick until it ended.
      expect(finishedWhileRunning).toBeGreaterThan(3);
    } finally {
      await database.close();
    }
  });

  it("serves the serving path's work before the dashboard reads waiting for their turn", async () => {
    const database = await openDatabase({ kind: "pglite", dataDir: newDir(), readTimeoutMs: 120_000 });
    try {
      const order: string[] = [];
      const report = sql`select count(*) from generate_series(1, 1500000)`;
      const first = database.readDb.execute(report).then(() => order.push("report 1"));
      const second = database.readDb.execute(report).then(() => order.push("report 2"));
      const signIn = database.db.execute(sql`select 1`).then(() => order.push("sign-in"));
      await Promise.all([first, second, signIn]);
      // The running report finishes; the sign-in goes before the report that was waiting.
      expect(order).toEqual(["report 1", "sign-in", "report 2"]);
    } finally {
      await database.close();
    }
  });

  it("admits one process: a second opening is refused by name, a dead holder's lock is taken over", async () => {
    const dir = newDir();
    const first = await openDatabase({ kind: "pglite", dataDir: dir, role: "server" });
    const refused = await openDatabase({ kind: "pglite", dataDir: dir }).catch((e) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect(refused.message).toBe(
      `An Eval Console server (pid ${process.pid}) is starting on the data directory ${dir}; wait until it serves (operator commands then go through it), or stop it.`,
    );
    first.lock?.update({ url: "http://127.0.0.1:3999" });
    const named = await openDatabase({ kind: "pglite", dataDir: dir }).catch((e) => e);
    expect(named.message).toContain(`(pid ${process.pid}, http://127.0.0.1:3999) is running`);
    await first.close();

    // kill -9 leaves the lock behind: its pid is gone, so it is stale.
    const lock = join(dir, LOCK_FILE);
    const stale = { pid: await deadPid(), started: "1", host: hostname(), role: "server", since: "" };
    writeFileSync(lock, JSON.stringify(stale));
    const afterCrash = await openDatabase({ kind: "pglite", dataDir: dir });
    expect(JSON.parse(readFileSync(lock, "utf8")).pid).toBe(process.pid);
    await afterCrash.close();

    // A live pid that started after the lock was written is another process reusing the number.
    const reused = { ...stale, pid: process.pid, started: `${processStart(process.pid)}0` };
    writeFileSync(lock, JSON.stringify(reused));
    const afterReuse = await openDatabase({ kind: "pglite", dataDir: dir });
    await afterReuse.close();
  });
});

describe("two servers on one data directory", () => {
  it("refuses the second with one line naming the first, which keeps serving", async () => {
    const dir = newDir();
    const env = (port: number) => ({
      DATA_DIR: dir,
      PORT: String(port),
      AUTH_PORT: String(port + 1),
      DEMO_PASSWORD: "two-servers-password",
      DEMO_EVENTS: "0",
    });
    const first = runCli(env(3396), ["serve"]);
    try {
      await waitFor(() => first.out().includes("Eval Console is running"), 120_000);
      // The server's own pid (the test starts it through the TypeScript runner, another process).
      const serverPid = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid;
      const second = runCli(env(3398), ["serve"]);
      expect(await second.exited).toBe(1);
      expect(second.err().trim()).toBe(
        `An Eval Console server (pid ${serverPid}, http://127.0.0.1:3396) is running on the data directory ${dir}; stop it first, or set DATA_DIR to another directory.`,
      );
      const health = await fetch("http://127.0.0.1:3396/readyz");
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ready", database: "pglite" });
    } finally {
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(0);
    }
    // Stopped cleanly: the lock is gone with it.
    expect(() => readFileSync(join(dir, LOCK_FILE))).toThrow();
  }, 240_000);
});
