// The console's dark algorithm (lib/antd/dark-algorithm): its table is antd's own answer for the
// console's seed, so the theme, its token hash and the build's precomputed styles are those of
// antd's dark algorithm; it answers that seed without running antd's, and any other seed through it.
import { render, screen } from "@testing-library/react";
import { Button, theme } from "antd";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ThemeShell } from "../../src/components/theme-shell";
import { darkAlgorithm } from "../../src/lib/antd/dark-algorithm";
import darkMapToken from "../../src/lib/antd/dark-map-token.json";

afterEach(() => vi.restoreAllMocks());

describe("the console's dark algorithm", () => {
  // First: antd keeps each theme's tokens once computed, for the rest of the file.
  it("answers the console's theme from its table: the shell's first render runs antd's algorithm nowhere", () => {
    const antds = vi.spyOn(theme, "darkAlgorithm");
    render(
      <ThemeShell>
        <Button type="primary">Create Workspace</Button>
      </ThemeShell>,
    );
    expect(screen.getByRole("button", { name: "Create Workspace" })).toBeVisible();
    expect(antds).not.toHaveBeenCalled();
  });

  it("holds antd's own answer for the default seed (else: npx tsx scripts/write-dark-map-token.ts)", () => {
    expect(darkMapToken).toEqual(theme.darkAlgorithm(theme.defaultSeed));
  });

  it("gives the theme the same design tokens as antd's dark algorithm", () => {
    expect(theme.getDesignToken({ algorithm: darkAlgorithm })).toEqual(
      theme.getDesignToken({ algorithm: theme.darkAlgorithm }),
    );
  });

  it("answers the default seed from its table, without running antd's algorithm", () => {
    const antds = vi.spyOn(theme, "darkAlgorithm");
    const first = darkAlgorithm({ ...theme.defaultSeed });
    expect(antds).not.toHaveBeenCalled();
    // Each caller gets its own copy: antd merges into what the algorithm returns.
    (first as unknown as Record<string, unknown>).colorPrimary = "changed";
    expect(darkAlgorithm({ ...theme.defaultSeed }).colorPrimary).toBe(darkMapToken.colorPrimary);
  });

  it("hands any other seed, or another algorithm's tokens, to antd's", () => {
    const seed = { ...theme.defaultSeed, colorPrimary: "#fa541c" };
    expect(darkAlgorithm(seed)).toEqual(theme.darkAlgorithm(seed));
    expect(darkAlgorithm(seed).colorPrimary).not.toBe(darkMapToken.colorPrimary);
    const compact = theme.compactAlgorithm(theme.defaultSeed);
    expect(darkAlgorithm(theme.defaultSeed, compact)).toEqual(
      theme.darkAlgorithm(theme.defaultSeed, compact),
    );
    expect(theme.getDesignToken({ algorithm: darkAlgorithm, token: { borderRadius: 2 } })).toEqual(
      theme.getDesignToken({ algorithm: theme.darkAlgorithm, token: { borderRadius: 2 } }),
    );
  });
});
