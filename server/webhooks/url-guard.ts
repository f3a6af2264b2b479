import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * The SSRF guard of webhook URLs: only http(s), and (unless WEBHOOK_ALLOW_PRIVATE_URLS) no host
 * that resolves to a special-purpose address (loopback, private, link-local with the cloud
 * metadata at 169.254.169.254, documentation, 6to4, NAT64…) or to one of this machine's own. Checked when an endpoint is saved and again at every delivery, on the very address the
 * request then connects to, so a name re-pointed after the check (DNS rebinding) cannot slip by.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048;

// Every range of IANA's IPv4 and IPv6 special-purpose address registries (RFC 6890 and later),
// plus multicast: none of them is a receiver on the public internet, and several lead back into
// the servers' own network.
const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.31.196.0", 24], // AS112
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["192.175.48.0", 24], // AS112 direct delegation
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the limited broadcast address
] as const)
  blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 96], // unspecified, loopback and the IPv4-compatible form ::a.b.c.d
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 23], // IETF protocol assignments (Teredo among them)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: carries an IPv4 address, such as 2002:7f00:1::1 for 127.0.0.1
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  blocked.addSubnet(net, bits, "ipv6");

/** The machine's own interface addresses, read again at most every minute (they may change). */
let own: { at: number; addresses: Set<string> } = { at: 0, addresses: new Set() };
function ownAddresses(): Set<string> {
  if (Date.now() - own.at > 60_000) {
    const addresses = new Set<string>();
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) addresses.add(a.address.toLowerCase().replace(/%.*$/, ""));
    own = { at: Date.now(), addresses };
  }
  return own.addresses;
}

/**
 * Whether an IP address is one a webhook must not reach: a special-purpose range (IPv4-mapped
 * IPv6 checked as its IPv4 address), or an address of this machine's own interfaces — a server
 * reachable on a public address would otherwise answer webhooks sent to itself.
 */
export function isPrivateAddress(address: string): boolean {
  const lower = address.toLowerCase();
  const mapped = lower.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  const family = isIP(lower);
  if (family === 0) return true;
  if (ownAddresses().has(mapped?.[1] ?? lower)) return true;
  if (mapped) return blocked.check(mapped[1] as string, "ipv4");
  // IPv4-mapped in hex (::ffff:7f00:1, as URLs write [::ffff:127.0.0.1]): never a receiver as such.
  // Not a BlockList rule: the list would then match every IPv4 address too.
  if (lower.startsWith("::ffff:")) return true;
  return blocked.check(lower, family === 4 ? "ipv4" : "ipv6");
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
