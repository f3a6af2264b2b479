import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/platform/config";
import { DEFAULT_DEMO_PASSWORD } from "../../server/seed";
import { demoSignIn, signInLines } from "../../server/sign-in";

// The start banner's demo sign-in: a password is printed only when the product chose it (generated
// on a new PostgreSQL demo, or the documented default of the embedded one). A password set through
// DEMO_PASSWORD is the operator's secret and never appears in the banner, whether this start
// created the demo with it, found the demo made, or did not seed at all.

const SECRET = "operators-own-secret-1";
const embedded = (env: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: "./data-never-opened", CONSOLE_DIR: "./tests/server/fixtures/console", ...env });
const postgres = (env: Record<string, string> = {}) =>
  embedded({ DATABASE_URL: "postgres://eval@db.internal:5432/evals", ...env });

const banner = (config: ReturnType<typeof loadConfig>, seeded: Parameters<typeof demoSignIn>[1]) =>
  signInLines(config, demoSignIn(config, seeded), null).join("\n");
const passwordLine = (text: string) => text.split("\n").find((l) => l.trim().startsWith("password:"));

describe("the start banner's demo sign-in", () => {
  it("never prints a password set through DEMO_PASSWORD", () => {
    const made = { created: true, password: SECRET, passwordSource: "DEMO_PASSWORD" } as const;
    const found = { created: false, reason: "the demo organization already exists" } as const;
    for (const config of [embedded({ DEMO_PASSWORD: SECRET }), postgres({ DEMO_PASSWORD: SECRET })])
      for (const seeded of [made, found, null]) {
        const text = banner(config, seeded);
        expect(text).not.toContain(SECRET);
        expect(text).toContain("  Demo sign-in (DEMO_PASSWORD):");
        expect(passwordLine(text)).toBe("    password: the one set in DEMO_PASSWORD (not printed)");
      }
  });

  it("prints a password the product chose: generated now, or the documented default", () => {
    const generated = banner(postgres(), {
      created: true,
      password: "gen-Abc123",
      passwordSource: "generated",
    });
    expect(generated).toContain("  Demo sign-in (generated now; it is not shown again):");
    expect(passwordLine(generated)).toBe("    password: gen-Abc123");

    const made = banner(embedded(), {
      created: true,
      password: DEFAULT_DEMO_PASSWORD,
      passwordSource: "default",
    });
    expect(made).toContain("  Demo sign-in (documented default):");
    expect(passwordLine(made)).toBe(`    password: ${DEFAULT_DEMO_PASSWORD}`);

    const again = banner(embedded(), { created: false, reason: "the demo organization already exists" });
    expect(again).toContain("  Demo sign-in (documented default, unless changed):");
    expect(passwordLine(again)).toBe(`    password: ${DEFAULT_DEMO_PASSWORD}`);
  });

  it("says where the password came from when this start did not choose it", () => {
    const text = banner(postgres(), null);
    expect(text).toContain("  Demo sign-in (chosen when the demo was created):");
    expect(passwordLine(text)).toBe(
      "    password: (set when the demo was first created; `npm run seed` prints a new one only on a new database)",
    );
    expect(text).not.toContain(DEFAULT_DEMO_PASSWORD);
  });
});
