// The sidebar's expanded/collapsed choice survives reloads through a cookie, so the first paint
// already has the right width (a cookie is readable synchronously, before React renders).
export const SIDEBAR_COOKIE_NAME = "sidebar_state";
export const SIDEBAR_COOKIE_MAX_AGE_SECONDS = 60 * 60 * 24 * 7;

/** The full `document.cookie` assignment for the given state ("true" means expanded). */
export function serializeSidebarCookie(expanded: boolean): string {
  return `${SIDEBAR_COOKIE_NAME}=${expanded ? "true" : "false"}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE_SECONDS}`;
}

/** Expanded state stored in a `document.cookie` string; undefined when absent or unreadable. */
export function parseSidebarCookie(cookieHeader: string): boolean | undefined {
  for (const part of cookieHeader.split(";")) {
    const [rawName, ...rest] = part.split("=");
    if (rawName?.trim() !== SIDEBAR_COOKIE_NAME) continue;
    const value = rest.join("=").trim();
    if (value === "true") return true;
    if (value === "false") return false;
    return undefined;
  }
  return undefined;
}

/** Expanded unless the user collapsed it before. */
export function readSidebarExpanded(doc: Pick<Document, "cookie"> = document): boolean {
  return parseSidebarCookie(doc.cookie) ?? true;
}

export function writeSidebarExpanded(expanded: boolean, doc: Pick<Document, "cookie"> = document): void {
  doc.cookie = serializeSidebarCookie(expanded);
}
