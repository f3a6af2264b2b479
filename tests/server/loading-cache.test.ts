import { describe, expect, it } from "vitest";
import { loadingCache } from "../../server/platform/loading-cache";

/** A cache over a fake clock and a loader that counts its calls and can be held open. */
function setUp(
  o: { ttlMs?: number; max?: number; refreshAfterMs?: number; keep?: (v: string | null) => boolean } = {},
) {
  let now = 1000;
  const calls: string[] = [];
  let gate: Promise<void> | null = null;
  let answer = (k: string): string | null => `${k}@${calls.length}`;
  const cache = loadingCache<string, string | null>({
    ttlMs: o.ttlMs ?? 100,
    max: o.max ?? 10,
    now: () => now,
    ...(o.keep ? { keep: o.keep } : {}),
    ...(o.refreshAfterMs !== undefined ? { refreshAfterMs: o.refreshAfterMs } : {}),
    load: async (k) => {
      calls.push(k);
      const v = answer(k);
      if (gate) await gate;
      return v;
    },
  });
  return {
    cache,
    calls,
    tick: (ms: number) => {
      now += ms;
    },
    hold() {
      let open = () => {};
      gate = new Promise((r) => {
        open = r;
      });
      return () => {
        gate = null;
        open();
      };
    },
    answer: (f: (k: string) => string | null) => {
      answer = f;
    },
  };
}

describe("loading cache", () => {
  it("loads once per key within its lifetime, as a plain value on a hit, and again after it", async () => {
    const t = setUp({ ttlMs: 100 });
    expect(await t.cache.get("a")).toBe("a@1");
    expect(t.cache.get("a")).toBe("a@1");
    t.tick(100);
    expect(t.cache.get("a")).toBe("a@1");
    t.tick(1);
    expect(await t.cache.get("a")).toBe("a@2");
    expect(t.calls).toEqual(["a", "a"]);
  });

  it("shares one load between concurrent callers of a key", async () => {
    const t = setUp();
    const open = t.hold();
    const both = Promise.all([t.cache.get("a"), t.cache.get("a")]);
    open();
    expect(await both).toEqual(["a@1", "a@1"]);
    expect(t.calls).toEqual(["a"]);
  });

  it("does not store a load that was in flight when its key was dropped", async () => {
    const t = setUp();
    const open = t.hold();
    const stale = t.cache.get("a");
    t.cache.cache.delete("a");
    open();
    expect(await stale).toBe("a@1");
    expect(await t.cache.get("a")).toBe("a@2");
  });

  it("does not store a load that was in flight when everything was dropped", async () => {
    const t = setUp();
    const open = t.hold();
    const stale = t.cache.get("a");
    t.cache.cache.clear();
    open();
    await stale;
    expect(await t.cache.get("a")).toBe("a@2");
  });

  it("drops the entries whose values match", async () => {
    const t = setUp();
    await t.cache.get("a");
    await t.cache.get("b");
    t.cache.dropWhere((v) => v === "a@1");
    expect(t.cache.get("b")).toBe("b@2");
    expect(await t.cache.get("a")).toBe("a@3");
  });

  it("does not keep values the keep rule refuses (e.g. not found)", async () => {
    const t = setUp({ keep: (v) => v !== null });
    t.answer(() => null);
    expect(await t.cache.get("x")).toBeNull();
    expect(await t.cache.get("x")).toBeNull();
    expect(t.calls).toEqual(["x", "x"]);
  });

  it("forgets a failed load, so the next call tries again", async () => {
    const t = setUp();
    t.answer(() => {
      throw new Error("database away");
    });
    await expect(t.cache.get("a")).rejects.toThrow("database away");
    t.answer((k) => `${k}!`);
    expect(await t.cache.get("a")).toBe("a!");
  });

  it("stays within its bound: the least recently used value goes", async () => {
    const t = setUp({ max: 2, ttlMs: 100 });
    await t.cache.get("a");
    await t.cache.get("b");
    expect(t.cache.get("a")).toBe("a@1"); // "b" is now the least recently used
    await t.cache.get("c");
    expect(t.cache.cache.size).toBe(2);
    expect(t.cache.get("a")).toBe("a@1");
    expect(t.cache.get("c")).toBe("c@3");
    expect(await t.cache.get("b")).toBe("b@4");
    expect(t.calls).toEqual(["a", "b", "c", "b"]);
  });

  it("reloads a busy key in the background after refreshAfterMs, answering the cached value meanwhile", async () => {
    const t = setUp({ ttlMs: 100, refreshAfterMs: 60 });
    expect(await t.cache.get("a")).toBe("a@1");
    t.tick(59);
    expect(t.cache.get("a")).toBe("a@1");
    expect(t.calls).toEqual(["a"]);
    t.tick(1);
    expect(t.cache.get("a")).toBe("a@1"); // starts the reload
    expect(t.cache.get("a")).toBe("a@1"); // one reload at a time
    await new Promise((r) => setTimeout(r, 0));
    expect(t.calls).toEqual(["a", "a"]);
    expect(t.cache.get("a")).toBe("a@2");
  });

  it("drops a background reload's answer when the key was dropped meanwhile", async () => {
    const t = setUp({ ttlMs: 100, refreshAfterMs: 60 });
    await t.cache.get("a");
    t.tick(60);
    const open = t.hold();
    t.cache.get("a"); // reload in flight
    t.cache.cache.delete("a");
    open();
    await new Promise((r) => setTimeout(r, 0));
    expect(await t.cache.get("a")).toBe("a@3");
  });

  it("does not store a load in flight when matching values are dropped", async () => {
    const t = setUp();
    const open = t.hold();
    const loading = t.cache.get("a");
    t.cache.dropWhere(() => false);
    open();
    expect(await loading).toBe("a@1");
    expect(await t.cache.get("a")).toBe("a@2");
  });

  it("drops a matching value while its background reload runs, and stores nothing from that reload", async () => {
    const t = setUp({ ttlMs: 100, refreshAfterMs: 60 });
    await t.cache.get("a");
    t.tick(60);
    const open = t.hold();
    t.cache.get("a"); // reload in flight
    t.cache.dropWhere((v) => v === "a@1");
    const next = t.cache.get("a");
    expect(next).toBeInstanceOf(Promise);
    open();
    expect(await next).toBe("a@3");
    expect(t.calls).toEqual(["a", "a", "a"]);
  });
});
