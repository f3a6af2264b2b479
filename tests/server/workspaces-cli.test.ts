import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { auditLog, workspaces } from "../../server/db/schema";
import { openDatabase } from "../../server/platform/database";
import { serverCommand } from "./cli-process";

describe("workspace restore on the command line", () => {
  const dir = mkdtempSync(join(tmpdir(), "eval-console-restore-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (...args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(...serverCommand(args), {
        env: {
          ...process.env,
          DATABASE_URL: "",
          DATA_DIR: dir,
          LOG_LEVEL: "warn",
          DEMO_PASSWORD: "cli-demo-password",
        },
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("exit", (code) => resolve({ code, out, err }));
    });

  // Five command-line runs, each a process start: slow on a busy machine.
  it("restores a deleted workspace and refuses bad input", async () => {
    expect((await cli("workspace", "restore", "not-a-uuid")).code).toBe(2);
    // SEED_DEMO=never: a bare migrated database with one deleted workspace.
    expect((await cli("migrate")).code).toBe(0);
    let db = await openDatabase({ kind: "pglite", dataDir: dir });
    const [ws] = await db.db
      .insert(workspaces)
      .values({ organizationUuid: "org-1", name: "Red Team", deletedAt: new Date() })
      .returning();
    await db.close();

    const r = await cli("workspace", "restore", ws!.workspaceUuid);
    expect(r.err).toBe("");
    expect(r.out.trim()).toBe(`Workspace "Red Team" (${ws!.workspaceUuid}) is restored.`);
    expect(r.code).toBe(0);
    const again = await cli("workspace", "restore", ws!.workspaceUuid);
    expect([again.code, again.err.trim()]).toEqual([1, "The workspace is not deleted."]);

    db = await openDatabase({ kind: "pglite", dataDir: dir });
    try {
      const [row] = await db.db
        .select()
        .from(workspaces)
        .where(eq(workspaces.workspaceUuid, ws!.workspaceUuid));
      expect(row!.deletedAt).toBeNull();
      const [audit] = await db.db.select().from(auditLog).where(eq(auditLog.action, "workspace.restored"));
      expect(audit).toMatchObject({ source: "cli", actorUserId: null, after: { deleted_at: null } });
    } finally {
      await db.close();
    }
  }, 180_000);
});
