import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from "../../server/webhooks/backoff";
import { postWebhook } from "../../server/webhooks/send";
import { signatureHex, signPayload, verifySignature } from "../../server/webhooks/signature";
import {
  isPrivateAddress,
  parseWebhookUrl,
  resolveWebhookHost,
  WebhookUrlError,
} from "../../server/webhooks/url-guard";

// The pure parts of webhook delivery: the signature a receiver verifies, the retry schedule and
// the SSRF guard's address ranges.

describe("webhook signature", () => {
  const secret = "whsec_test";
  const body = '{"id":"1","type":"webhook.test"}';

  it("signs HMAC-SHA256 of '<t>.<body>' as t=…,v1=…", () => {
    // Known answer: printf '1700000000.{"id":"1","type":"webhook.test"}' | openssl dgst -sha256 -hmac whsec_test
    expect(signatureHex(secret, 1_700_000_000, body)).toBe(
      "5e8113c6b211e1d55daa172cb1d53e07445a308fd157645dc6abcd8c12cf2b79",
    );
    expect(signPayload(secret, body, 1_700_000_000)).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  it("verifies its own signature, within the tolerance", () => {
    const header = signPayload(secret, body, 1_700_000_000);
    expect(verifySignature(secret, body, header, { now: 1_700_000_100 })).toEqual({
      ok: true,
      timestamp: 1_700_000_000,
    });
    expect(verifySignature(secret, body, header, { now: 1_700_000_301 })).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("refuses a changed body, another secret, a changed timestamp and malformed headers", () => {
    const header = signPayload(secret, body, 1_700_000_000);
    const now = { now: 1_700_000_000 };
    expect(verifySignature(secret, `${body} `, header, now)).toEqual({ ok: false, reason: "mismatch" });
    expect(verifySignature("whsec_other", body, header, now)).toEqual({ ok: false, reason: "mismatch" });
    expect(verifySignature(secret, body, header.replace("t=1700000000", "t=1700000001"), now)).toEqual({
      ok: false,
      reason: "mismatch",
    });
    for (const bad of [undefined, "", "v1=abc", "t=1,v1=zz", `t=abc,v1=${"0".repeat(64)}`])
      expect(verifySignature(secret, body, bad, now)).toEqual({ ok: false, reason: "malformed" });
  });

  it("accepts any matching v1 among several (a sender rotating secrets)", () => {
    const t = 1_700_000_000;
    const header = `t=${t},v1=${signatureHex("whsec_old", t, body)},v1=${signatureHex(secret, t, body)}`;
    expect(verifySignature(secret, body, header, { now: t }).ok).toBe(true);
  });
});

describe("webhook retry schedule", () => {
  it("grows 30 s, 2 min, 10 min, 1 h, 6 h with the default base, jittered ±20%", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, 30, mid))).toEqual([
      30_000, 120_000, 600_000, 3_600_000, 21_600_000, 21_600_000, 21_600_000,
    ]);
    expect(retryDelayMs(1, 30, () => 0)).toBe(24_000);
    expect(retryDelayMs(1, 30, () => 1)).toBe(36_000);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
  });

  it("scales with the configured base", () => {
    expect(retryDelayMs(2, 0.05, () => 0.5)).toBe(200);
  });
});

describe("webhook URL guard", () => {
  it("treats loopback, private, link-local, CGNAT, unspecified and multicast addresses as private", () => {
    for (const a of [
      "127.0.0.1",
      "127.8.9.10",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.10",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "not-an-ip",
      // Documentation ranges, AS112, 6to4 relays, the limited broadcast address.
      "192.0.2.10",
      "198.51.100.7",
      "203.0.113.200",
      "192.31.196.1",
      "192.88.99.1",
      "255.255.255.255",
      // IPv6 forms that carry or reach an IPv4 address or this network.
      "::7f00:1", // [::127.0.0.1] as URLs normalise it
      "2002:7f00:1::1", // 6to4 of 127.0.0.1
      "::ffff:7f00:1",
      "64:ff9b::7f00:1",
      "2001:db8::1",
      "2001::1",
      "100::1",
      // This machine's own addresses, whatever range they are in.
      ...Object.values(networkInterfaces()).flatMap((l) =>
        (l ?? []).map((a) => a.address.replace(/%.*$/, "")),
      ),
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it("refuses the bracketed IPv4-compatible and 6to4 forms of loopback as URLs", async () => {
    for (const raw of [
      "http://[::127.0.0.1]:3000/v1/x",
      "http://[2002:7f00:1::1]/",
      "http://[::ffff:127.0.0.1]/",
    ])
      await expect(resolveWebhookHost(parseWebhookUrl(raw), false), raw).rejects.toThrow(WebhookUrlError);
  });

  it("takes only absolute http(s) URLs without credentials", () => {
    expect(parseWebhookUrl("https://example.com/hooks?x=1").hostname).toBe("example.com");
    for (const bad of [
      "ftp://example.com",
      "file:///etc/passwd",
      "example.com/x",
      "https://u:p@example.com",
      "x".repeat(3000),
    ])
      expect(() => parseWebhookUrl(bad), bad).toThrow(WebhookUrlError);
  });
});

describe("webhook attempt", () => {
  it("gives up on a receiver that does not answer within the timeout", async () => {
    const server = createServer(() => {});
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      const started = Date.now();
      const result = await postWebhook({
        url: `http://127.0.0.1:${port}/slow`,
        body: "{}",
        headers: { "content-type": "application/json" },
        allowPrivate: true,
        timeoutMs: 300,
      });
      expect(result).toEqual({ ok: false, statusCode: null, error: "No answer within 0.3 s." });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("refuses a private address before connecting unless allowed", async () => {
    const result = await postWebhook({
      url: "http://127.0.0.1:9/",
      body: "{}",
      headers: {},
      allowPrivate: false,
    });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/127\.0\.0\.1, a loopback, private or link-local address/);
  });
});
