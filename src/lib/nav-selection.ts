// Which sider entry is highlighted for a path: the entry whose list or show route matches.
// Routes are react-router patterns ("/workspace/:id").
import { matchPath } from "react-router";

export type NavRoutes = { key: string; routes: readonly string[] };

export function selectedNavKey(pathname: string, items: readonly NavRoutes[]): string | undefined {
  for (const item of items) {
    if (item.routes.some((pattern) => matchPath({ path: pattern, end: true }, pathname))) {
      return item.key;
    }
  }
  return undefined;
}
