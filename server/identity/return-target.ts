// Hosted pages take `rt`: the return URL as standard base64 (window.btoa), URL-encoded.
// Only URLs on an allowed origin are followed, so the sign-in page can't become an open redirect.

export function encodeReturnTarget(url: string): string {
  return Buffer.from(url, "latin1").toString("base64");
}

/** The decoded URL when it is on an allowed origin, else null. Tolerates base64url input. */
export function decodeReturnTarget(
  rt: string | undefined | null,
  allowedOrigins: readonly string[],
): string | null {
  if (!rt) return null;
  const normalized = rt.trim().replace(/-/g, "+").replace(/_/g, "/").replace(/ /g, "+");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(normalized)) return null;
  const decoded = Buffer.from(normalized, "base64").toString("latin1");
  let url: URL;
  try {
    url = new URL(decoded);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return allowedOrigins.includes(url.origin) ? url.href : null;
}
