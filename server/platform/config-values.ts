// Parsers of the configuration's single values that need more than a schema: the proxies trusted
// with the client address, a DNS server, the secrets keys. Each throws ConfigError with one line.
import { isIP } from "node:net";

/** Thrown for configuration the server cannot start with; its message is one printable line. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Which proxies may tell the client address (X-Forwarded-For) and protocol: none, a hop count, or addresses. */
export type TrustProxy = false | number | string[];

// proxy-addr's names for address ranges, accepted in the list as they are.
const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

function isIpOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [ip = "", bits, ...rest] = entry.split("/");
  const family = isIP(ip);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** `false` (the default), a hop count (`1`), or a comma-separated list of proxy IPs / CIDR ranges. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = (value ?? "").trim();
  if (v === "" || v.toLowerCase() === "false" || v === "0") return false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 32)
      throw new ConfigError(`Configuration error: TRUST_PROXY hop count must be 1-32 (got "${v}")`);
    return hops;
  }
  const list = v.split(",").map((s) => s.trim());
  const bad = list.filter((s) => !isIpOrCidr(s));
  if (bad.length)
    throw new ConfigError(
      `Configuration error: TRUST_PROXY must be false, a hop count such as 1, or a comma-separated list of proxy IPs/CIDR ranges such as 10.0.0.0/8,127.0.0.1 (got "${v}")`,
    );
  return list;
}

/** A DNS server as node:dns `setServers` takes it ("1.2.3.4", "1.2.3.4:53", "[::1]:53"), or null. */
export function dnsServer(v: string): string | null {
  const m = v.trim().match(/^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)|([0-9a-fA-F:]+))(?::(\d{1,5}))?$/);
  if (!m) return null;
  const host = m[1] ?? m[2] ?? m[3] ?? "";
  if (m[3] && m[4] !== undefined) return null; // a bare IPv6 address can't carry a port
  if (isIP(host) === 0) return null;
  const port = m[4] === undefined ? null : Number(m[4]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  const h = isIP(host) === 6 ? `[${host}]` : host;
  return port === null ? host : `${h}:${port}`;
}

/**
 * A 32-byte key given as 64 hex digits or as base64 / base64url (44 or 43 characters). Returns
 * null when the text is neither.
 */
export function decodeSecretsKey(value: string): Buffer | null {
  const v = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) return null;
  const key = Buffer.from(v.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return key.length === 32 ? key : null;
}

export function parseSecretsKeys(current: string | undefined, previous: string | undefined) {
  const bad = (name: string) =>
    new ConfigError(
      `Configuration error: ${name} must be 32 random bytes as 64 hex digits or base64, e.g. the output of "openssl rand -base64 32"`,
    );
  const key = current === undefined ? undefined : decodeSecretsKey(current);
  if (key === null) throw bad("SECRETS_KEY");
  const olds = (previous ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(
      (s) =>
        decodeSecretsKey(s) ??
        (() => {
          throw bad("SECRETS_KEY_PREVIOUS (a comma-separated list)");
        })(),
    );
  if (olds.length && !key)
    throw new ConfigError("Configuration error: SECRETS_KEY_PREVIOUS is set but SECRETS_KEY is not");
  return { secretsKey: key, secretsKeysPrevious: olds };
}
