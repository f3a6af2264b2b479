// A GET started ahead of the page (providers/prefetch.ts) answers the first identical GET once,
// and nothing else: not a second read, not a different request, not after it has gone stale.
import { describe, expect, it } from "vitest";
import type { ApiFetch, ApiRequest } from "../../src/providers/http";
import { PREFETCH_TTL_MS, requestKey, withPrefetch } from "../../src/providers/prefetch";

function recording() {
  const sent: string[] = [];
  let n = 0;
  const apiFetch = (async (path: string, request: ApiRequest = {}) => {
    sent.push(`${request.method ?? "GET"} ${requestKey(path, request.query)}`);
    n += 1;
    return { answer: n };
  }) as ApiFetch;
  return { sent, apiFetch };
}

describe("prefetch", () => {
  it("hands a prefetched GET to the first identical GET, whatever the parameter order, once", async () => {
    const { sent, apiFetch } = recording();
    const p = withPrefetch(apiFetch);
    p.prefetch("/v1/usage/summary", { eval_type: ["a", "b"], jailbreak: "non" });
    expect(sent).toEqual(["GET /v1/usage/summary?eval_type=a\u0000b&jailbreak=non"]);
    expect(
      await p.apiFetch("/v1/usage/summary", { query: { jailbreak: "non", eval_type: ["a", "b"] } }),
    ).toEqual({
      answer: 1,
    });
    expect(sent).toHaveLength(1);
    // A second read asks the server.
    expect(
      await p.apiFetch("/v1/usage/summary", { query: { jailbreak: "non", eval_type: ["a", "b"] } }),
    ).toEqual({
      answer: 2,
    });
  });

  it("does not answer other requests, other methods, or after the answer has gone stale", async () => {
    const { sent, apiFetch } = recording();
    let now = 0;
    const p = withPrefetch(apiFetch, PREFETCH_TTL_MS, () => now);
    p.prefetch("/v1/usage/records", { page: 1 });
    expect(await p.apiFetch("/v1/usage/records", { query: { page: 2 } })).toEqual({ answer: 2 });
    expect(await p.apiFetch("/v1/usage/records", { method: "POST", query: { page: 1 } })).toEqual({
      answer: 3,
    });
    now = PREFETCH_TTL_MS;
    expect(await p.apiFetch("/v1/usage/records", { query: { page: 1 } })).toEqual({ answer: 4 });
    expect(sent).toHaveLength(4);
  });

  it("passes a failed prefetch's error to the page's read, with no unhandled rejection", async () => {
    const failing = (async () => {
      throw new Error("down");
    }) as ApiFetch;
    const p = withPrefetch(failing);
    p.prefetch("/v1/usage/series");
    await expect(p.apiFetch("/v1/usage/series")).rejects.toThrow("down");
  });
});
