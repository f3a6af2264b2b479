import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { saveDemoIngestKey, writeDemoIngestKey } from "../../server/demo-cli";

// Where a new demo's ingestion key goes instead of the output: DATA_DIR/demo-ingest-key, owner-only,
// replaced whole; the printed line says where and never holds the token.

const root = mkdtempSync(join(tmpdir(), "eval-console-demo-key-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const token = (c: string) => `eci_${c.repeat(43)}`;

describe("the demo ingestion key file", () => {
  it("is written owner-only, in a data directory made if missing, and replaced whole", () => {
    const dir = join(root, "fresh", "data");
    const path = writeDemoIngestKey(dir, token("a"));
    expect(path).toBe(join(dir, "demo-ingest-key"));
    expect(readFileSync(path, "utf8")).toBe(`${token("a")}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);

    // A later demo (a new database on the same directory) replaces it; no temporary file is left.
    writeFileSync(path, "stale", { mode: 0o644 });
    writeDemoIngestKey(dir, token("b"));
    expect(readFileSync(path, "utf8")).toBe(`${token("b")}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["demo-ingest-key"]);
  });

  it("is announced by where it is, never by its token, also when it cannot be written", () => {
    const dir = join(root, "announced");
    const line = saveDemoIngestKey(dir, token("c"));
    expect(line).toBe(
      `Demo ingestion key for Acme AI: in ${join(dir, "demo-ingest-key")} (owner-only; \`ingest-key create\` makes more)`,
    );
    expect(line).not.toContain("eci_");

    const notADirectory = join(root, "a-file");
    writeFileSync(notADirectory, "");
    const failed = saveDemoIngestKey(notADirectory, token("d"));
    expect(failed).toMatch(
      /^Demo ingestion key for Acme AI: not kept, .*demo-ingest-key cannot be written \(.+\); `ingest-key create` makes one$/,
    );
    expect(failed).not.toContain("eci_");
  });
});
