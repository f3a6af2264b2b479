// The page module at each route, for a first visit to fetch its landing page's code beside the
// shell's instead of after it has run (lib/landing-page-code, main.tsx). The resources (resources/*)
// declare the same pages with their loaders, which only the shell holds;
// tests/unit/page-modules.test.ts checks that the two agree. The build turns each module into the
// files its chunk needs (scripts/page-code.ts) and lists them in index.html.
export const PAGE_MODULES: Readonly<Record<string, string>> = {
  "/": "src/pages/billing/billing-page.tsx",
  "/eval-runs": "src/pages/eval-runs/eval-runs-list-page.tsx",
  "/eval-runs/:id": "src/pages/eval-runs/eval-run-show-page.tsx",
  "/organization/workspaces": "src/pages/workspaces/workspace-list-page.tsx",
  "/workspace/:id": "src/pages/workspaces/workspace-show-page.tsx",
  "/users": "src/pages/users/users-page.tsx",
  "/account/api-keys": "src/pages/api-keys/api-keys-page.tsx",
  "/organization/audit-log": "src/pages/audit-log/audit-log-page.tsx",
  "/organization/webhooks": "src/pages/webhooks/webhooks-list-page.tsx",
  "/organization/webhooks/:id": "src/pages/webhooks/webhook-show-page.tsx",
  "/account/settings": "src/pages/account/account-settings-page.tsx",
  "/operator/organizations": "src/pages/operator/organizations-list-page.tsx",
  "/operator/organizations/:id": "src/pages/operator/organization-show-page.tsx",
  "/operator/price-rules": "src/pages/operator/price-rules-list-page.tsx",
  "/operator/ingest-keys": "src/pages/operator/ingest-keys-list-page.tsx",
};

/** The route among `routes` that `pathname` is at (a ":name" segment matches any one segment). */
export function routeOf(pathname: string, routes: Iterable<string>): string | undefined {
  const parts = pathname.replace(/\/+$/, "").split("/");
  for (const route of routes) {
    const pattern = route.replace(/\/+$/, "").split("/");
    if (
      pattern.length === parts.length &&
      pattern.every((p, i) => (p.startsWith(":") ? parts[i] !== "" : p === parts[i]))
    )
      return route;
  }
  return undefined;
}
