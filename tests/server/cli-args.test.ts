import { describe, expect, it } from "vitest";
import { parseIngestKeyArgs, parseMeteringArgs, parseSeedArgs } from "../../server/metering/shared/cli-args";

// The command line's words, read before anything opens: the parsed command, or one line saying
// what is wrong.

const error = (r: { ok: true } | { ok: false; error: string }) => (r.ok ? "ok" : r.error);

describe("command-line arguments", () => {
  it("reads values given as --flag value or --flag=value, and switches", () => {
    expect(parseMeteringArgs("usage", ["import", "events.csv", "--org=acme", "--backfill"])).toEqual({
      ok: true,
      value: { kind: "import", org: "acme", file: "events.csv", backfill: true },
    });
    expect(
      parseMeteringArgs("cycle", ["close", "--org", "acme", "--end", "2026-03-01", "--no-next"]),
    ).toEqual({
      ok: true,
      value: { kind: "cycle-close", org: "acme", end: "2026-03-01", openNext: false },
    });
    expect(parseSeedArgs(["--events", "500", "--seed=7"])).toEqual({
      ok: true,
      value: { events: 500, seed: 7 },
    });
  });

  it("takes a value that starts with one dash (a negative payment)", () => {
    const r = parseMeteringArgs("payment", ["record", "--org", "acme", "--amount", "-12.50"]);
    expect(r).toEqual({ ok: true, value: { kind: "payment", org: "acme", amountMicros: -12_500_000n } });
  });

  it("says what is wrong in one line", () => {
    expect(error(parseMeteringArgs("usage", ["import", "f.csv", "--org", "a", "--colour", "red"]))).toBe(
      'Unknown option "--colour".',
    );
    expect(error(parseMeteringArgs("usage", ["import", "f.csv", "--org"]))).toBe("--org needs a value.");
    expect(error(parseMeteringArgs("usage", ["import", "f.csv", "--org", "--backfill"]))).toBe(
      "--org needs a value.",
    );
    expect(error(parseMeteringArgs("usage", ["import", "f.csv", "--org", "a", "--backfill=yes"]))).toBe(
      "--backfill takes no value.",
    );
    expect(error(parseMeteringArgs("usage", ["import", "f.csv", "--org", "a", "--org", "b"]))).toBe(
      "--org is given twice.",
    );
    expect(error(parseMeteringArgs("usage", ["import", "--org", "a"]))).toBe(
      "usage import needs a file (.csv, .ndjson or .jsonl).",
    );
    expect(error(parseMeteringArgs("cycle", ["open", "--org", "a", "extra"]))).toBe(
      'Unexpected argument "extra".',
    );
    expect(error(parseSeedArgs(["--events", "lots"]))).toBe(
      "--events must be a whole number from 0 to 100000000.",
    );
    expect(error(parseIngestKeyArgs(["create", "--name="]))).toBe("--name needs a value.");
    expect(error(parseIngestKeyArgs(["revoke", "not-a-uuid"]))).toBe(
      "Usage: tsx server/main.ts ingest-key revoke <ingest key uuid>",
    );
  });
});
