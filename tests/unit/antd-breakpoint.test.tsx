// The console's Grid.useBreakpoint, which the build gives antd's modules in place of antd's own: the
// same screens, known on the first render, and no render on mounting (antd's renders twice). And the
// build's swap: antd's own imports of the hook resolve to the console's, nothing else does.
import { act, render } from "@testing-library/react";
import { Grid } from "antd";
import type { ScreenMap } from "antd/es/_util/responsiveObserver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { breakpointsAnsweredAtOnce } from "../../scripts/antd-breakpoints";
import useBreakpoint, { sameScreens } from "../../src/lib/antd/use-breakpoint";

/** A window `width` px wide whose media queries can be changed, as a resized browser changes them. */
function resizableWindow(initialWidth: number) {
  let width = initialWidth;
  const lists = new Map<string, { matches: boolean; listeners: Set<(e: { matches: boolean }) => void> }>();
  const matchesAt = (query: string) => {
    const min = /min-width:\s*(\d+)px/.exec(query);
    const max = /max-width:\s*(\d+)px/.exec(query);
    return (!min || width >= Number(min[1])) && (!max || width <= Number(max[1]));
  };
  const original = window.matchMedia;
  window.matchMedia = ((query: string) => {
    const entry = lists.get(query) ?? { matches: matchesAt(query), listeners: new Set() };
    lists.set(query, entry);
    return {
      get matches() {
        return matchesAt(query);
      },
      media: query,
      addEventListener: (_: string, l: (e: { matches: boolean }) => void) => entry.listeners.add(l),
      removeEventListener: (_: string, l: (e: { matches: boolean }) => void) => entry.listeners.delete(l),
      addListener: (l: (e: { matches: boolean }) => void) => entry.listeners.add(l),
      removeListener: (l: (e: { matches: boolean }) => void) => entry.listeners.delete(l),
    } as unknown as MediaQueryList;
  }) as typeof window.matchMedia;
  return {
    resize(to: number) {
      width = to;
      for (const [query, entry] of lists) {
        const now = matchesAt(query);
        if (now === entry.matches) continue;
        entry.matches = now;
        for (const l of [...entry.listeners]) l({ matches: now });
      }
    },
    restore: () => {
      window.matchMedia = original;
    },
  };
}

function Probe({ hook, seen }: { hook: () => ScreenMap | null; seen: (ScreenMap | null)[] }) {
  seen.push(hook());
  return null;
}

/** Renders a component asking `hook`; what it answered on each render. */
function screensSeen(hook: () => ScreenMap | null) {
  const seen: (ScreenMap | null)[] = [];
  render(<Probe hook={hook} seen={seen} />);
  return seen;
}

const DESKTOP = { xs: false, sm: true, md: true, lg: true, xl: true, xxl: false };
const TABLET = { xs: false, sm: true, md: true, lg: false, xl: false, xxl: false };

describe("the console's useBreakpoint", () => {
  let screen: ReturnType<typeof resizableWindow>;
  beforeEach(() => {
    screen = resizableWindow(1440);
  });
  afterEach(() => screen.restore());

  it("answers the screens on the first render and renders no second time on mounting", () => {
    const seen = screensSeen(() => useBreakpoint());
    expect(seen).toEqual([DESKTOP]);
  });

  it("answers what antd's own hook answers once it has settled", () => {
    const antds = screensSeen(() => Grid.useBreakpoint());
    // antd's: its default on the first render, then the screens on a render of their own.
    expect(antds).toEqual([{}, DESKTOP]);
    expect(screensSeen(() => useBreakpoint())).toEqual([antds.at(-1)]);
  });

  it("renders again when a screen size changes, and only then", () => {
    const seen = screensSeen(() => useBreakpoint());
    act(() => screen.resize(1300));
    expect(seen).toEqual([DESKTOP]);
    act(() => screen.resize(800));
    expect(seen).toEqual([DESKTOP, TABLET]);
  });

  it("never renders again when asked not to (antd's tables without responsive columns)", () => {
    const seen = screensSeen(() => useBreakpoint(false));
    act(() => screen.resize(800));
    expect(seen).toEqual([DESKTOP]);
  });

  it("compares screens by their values", () => {
    expect(sameScreens({ md: true, lg: false }, { lg: false, md: true })).toBe(true);
    expect(sameScreens({ md: true }, { md: true, lg: true })).toBe(false);
    expect(sameScreens(null, null)).toBe(true);
    expect(sameScreens(null, {})).toBe(false);
  });
});

describe("the build's swap of antd's useBreakpoint", () => {
  const ANTD = "/p/node_modules/antd/es";
  const REPLACEMENT = "/p/src/lib/antd/use-breakpoint.ts";

  async function resolveFrom(source: string, importer: string, resolvesTo: string) {
    const plugin = breakpointsAnsweredAtOnce(REPLACEMENT);
    const resolveId = plugin.resolveId as unknown as (
      this: unknown,
      source: string,
      importer: string,
      options: object,
    ) => Promise<unknown>;
    const context = { resolve: async () => ({ id: resolvesTo }) };
    return resolveId.call(context, source, importer, {});
  }

  it("gives antd's modules the console's hook", async () => {
    const hook = `${ANTD}/grid/hooks/useBreakpoint.js`;
    expect(await resolveFrom("./hooks/useBreakpoint", `${ANTD}/grid/index.js`, hook)).toBe(REPLACEMENT);
    expect(await resolveFrom("../grid/hooks/useBreakpoint", `${ANTD}/table/InternalTable.js`, hook)).toBe(
      REPLACEMENT,
    );
  });

  it("leaves every other import as it is", async () => {
    const hook = `${ANTD}/grid/hooks/useBreakpoint.js`;
    expect(await resolveFrom("./hooks/useBreakpoint", "/p/src/pages/x.tsx", hook)).toBeNull();
    expect(
      await resolveFrom("./useBreakpoint", `${ANTD}/other/index.js`, `${ANTD}/other/useBreakpoint.js`),
    ).toBeNull();
    expect(await resolveFrom("./row", `${ANTD}/grid/index.js`, `${ANTD}/grid/row.js`)).toBeNull();
  });
});
