// Hosted identity pages take `rt`, the standard base64 (btoa) of the URL to come back to.
// btoa throws on characters outside Latin-1, so anything else is percent-encoded first; a
// browser's location.href is already ASCII, but a hand-made URL may not be.

/** Makes a URL safe for btoa without changing an ASCII URL. */
export function toLatin1Url(url: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the point
  return url.replace(/[^\u0000-\u00ff]+/g, (chunk) => encodeURIComponent(chunk));
}

/** The value a hosted page expects in its `rt` query parameter (before URL encoding). */
export function encodeReturnTarget(url: string): string {
  return btoa(toLatin1Url(url));
}

export function decodeReturnTarget(rt: string): string {
  return atob(rt);
}
