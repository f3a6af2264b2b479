import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * The SSRF guard of webhook URLs: only http(s), and (unless WEBHOOK_ALLOW_PRIVATE_URLS) no host
 * that resolves to an address inside the servers' own networks: loopback, private, link-local
 * (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified, multicast and reserved
 * ranges. Checked when an endpoint is saved and again at every delivery, on the very address the
 * request then connects to, so a name re-pointed after the check (DNS rebinding) cannot slip by.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048;

const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  blocked.addSubnet(net, bits, "ipv6");

/** Whether an IP address is one a webhook must not reach (IPv4-mapped IPv6 checked as IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return blocked.check(mapped[1] as string, "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

export class WebhookUrlError extends Error {
  override name = "WebhookUrlError";
}

/** The URL parsed, or WebhookUrlError saying what is wrong with its form. */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH)
    throw new WebhookUrlError(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError("url must be an absolute http(s) URL, e.g. https://example.com/webhooks.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new WebhookUrlError("url must use http or https.");
  if (url.username || url.password) throw new WebhookUrlError("url must not carry a user name or password.");
  if (!url.hostname) throw new WebhookUrlError("url must name a host.");
  return url;
}

/** The bare host of a URL (IPv6 without its brackets). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/**
 * The address to connect to for `url`: its IP, or the first address its name resolves to, having
 * checked every address the name has. WebhookUrlError when a name does not resolve, or (unless
 * `allowPrivate`) any address is private.
 */
export async function resolveWebhookHost(
  url: URL,
  allowPrivate: boolean,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  const literal = isIP(host);
  const addresses = literal
    ? [{ address: host, family: literal }]
    : await lookup(host, { all: true, verbatim: true }).catch(() => {
        throw new WebhookUrlError(`The host ${host} does not resolve.`);
      });
  if (!addresses.length) throw new WebhookUrlError(`The host ${host} does not resolve.`);
  if (!allowPrivate) {
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad)
      throw new WebhookUrlError(
        `The host ${host} resolves to ${bad.address}, a loopback, private or link-local address, which webhooks may not reach.`,
      );
  }
  const first = addresses[0] as { address: string; family: number };
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
