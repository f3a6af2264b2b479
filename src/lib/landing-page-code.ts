// A first visit's landing page code, fetched while the shell runs. The shell (render-console.tsx)
// holds the routes, and asks for the page's chunks only once it has been evaluated (450-700 ms of
// a cold visit's main thread on the benchmark machine); the page then waited for their download.
// The build lists each route's files in index.html (`#page-code`, written by scripts/page-code.ts),
// and the entry adds a modulepreload link for each file of the route it landed on as it imports
// the shell, so that they download meanwhile and are there when the shell asks. Not earlier: on a
// cold visit the files' parsing would hold up the session's answer and the early reads, which the
// entry sends first. A visit the route sends elsewhere (a member on Billing & Usage) has fetched a
// page's code for nothing, a first visit only.
import { routeOf } from "./page-modules";

export const PAGE_CODE_ID = "page-code";

/** Adds a modulepreload link for each file of the page at `pathname`; returns their URLs. A build
 * without the list (the dev server), an unknown route or a list it cannot read adds none. */
export function preloadLandingPageCode(doc: Document, pathname: string): string[] {
  let files: unknown;
  try {
    files = JSON.parse(doc.getElementById(PAGE_CODE_ID)?.textContent || "{}");
  } catch {
    return [];
  }
  if (typeof files !== "object" || files === null) return [];
  const byRoute = files as Record<string, unknown>;
  const route = routeOf(pathname, Object.keys(byRoute));
  const listed = route === undefined ? undefined : byRoute[route];
  const hrefs = Array.isArray(listed) ? listed.filter((f): f is string => typeof f === "string") : [];
  for (const href of hrefs) {
    const link = doc.createElement("link");
    link.rel = "modulepreload";
    link.crossOrigin = "";
    link.href = href;
    doc.head.append(link);
  }
  return hrefs;
}
