// The route tree. Refine sits at the root (its router bindings need the data router's context);
// the authenticated layout wraps every page; page errors render inside the layout.
//
// The shell (Refine, auth gate, layout, current user) is in the entry chunk; each page is its own
// chunk, so the first load fetches only the page it shows. main.tsx starts fetching the matched
// page's chunk at startup (`preloadPage`), in parallel with the session check, instead of after it.

import { type ComponentType, lazy, Suspense, useEffect } from "react";
import { matchRoutes, type RouteObject } from "react-router";
import { RefineRoot } from "./App";
import { AdminOnly } from "./components/auth/admin-only";
import { AuthGate } from "./components/auth/auth-gate";
import { LoadingScreen } from "./components/feedback/loading-screen";
import { RouteError } from "./components/feedback/route-error";
import { AppLayout } from "./components/layout/app-layout";
import { NotFoundPage } from "./components/not-found";

type PageHandle = { preload: () => Promise<unknown> };

/** A page whose code is fetched once, on preload or first render; a failed fetch throws into the
 * route's error element, whose "Reload page" fetches again. `name` keys the page's Suspense
 * boundary: a new boundary shows its fallback at once, whereas the router's navigation runs in a
 * transition that would keep the previous page on screen (under the new URL) while the chunk loads. */
function lazyPage(name: string, load: () => Promise<ComponentType>) {
  let loading: Promise<{ default: ComponentType }> | undefined;
  const preload = () => {
    loading ??= load().then((component) => ({ default: component }));
    return loading;
  };
  const Page = lazy(preload);
  const element = (
    <Suspense key={name} fallback={<LoadingScreen fullScreen={false} />}>
      <Page />
    </Suspense>
  );
  const handle: PageHandle = { preload };
  return { element, handle };
}

const billing = lazyPage("billing", () => import("./pages/billing/billing-page").then((m) => m.BillingPage));
const workspaceList = lazyPage("workspace-list", () =>
  import("./pages/workspaces/workspace-list-page").then((m) => m.WorkspaceListPage),
);
const workspaceShow = lazyPage("workspace-show", () =>
  import("./pages/workspaces/workspace-show-page").then((m) => m.WorkspaceShowPage),
);
const users = lazyPage("users", () => import("./pages/users/users-page").then((m) => m.UsersPage));
const apiKeys = lazyPage("api-keys", () =>
  import("./pages/api-keys/api-keys-page").then((m) => m.ApiKeysPage),
);
const accountSettings = lazyPage("account-settings", () =>
  import("./pages/account/account-settings-page").then((m) => m.AccountSettingsPage),
);

/**
 * Starts fetching the billing chart's chunk (about 490 KB gzip) at the first idle moment after the
 * billing page mounts, so it downloads and compiles while the page's data calls are under way
 * instead of only after the series has arrived. Only for administrators (inside AdminOnly),
 * only where the chart is shown (768 px and up), and only in builds (unit tests render the page
 * without a canvas).
 */
function PrefetchChart() {
  useEffect(() => {
    if (!import.meta.env.PROD || !window.matchMedia?.("(min-width: 768px)").matches) return;
    const load = () => void import("./pages/billing/stacked-bars").catch(() => {});
    if (typeof window.requestIdleCallback !== "function") {
      const timer = setTimeout(load, 200);
      return () => clearTimeout(timer);
    }
    const idle = window.requestIdleCallback(load);
    return () => window.cancelIdleCallback(idle);
  }, []);
  return null;
}

export const routes: RouteObject[] = [
  {
    element: <RefineRoot />,
    errorElement: <RouteError />,
    children: [
      {
        element: (
          <AuthGate>
            <AppLayout />
          </AuthGate>
        ),
        children: [
          {
            errorElement: <RouteError />,
            children: [
              {
                index: true,
                handle: billing.handle,
                element: (
                  <AdminOnly resource="billing">
                    <PrefetchChart />
                    {billing.element}
                  </AdminOnly>
                ),
              },
              { path: "organization/workspaces", ...workspaceList },
              // Refine infers the resource and its id from the ":id" of the resource's show route.
              { path: "workspace/:id", ...workspaceShow },
              { path: "users", ...users },
              { path: "account/api-keys", ...apiKeys },
              { path: "account/settings", ...accountSettings },
              { path: "*", element: <NotFoundPage /> },
            ],
          },
        ],
      },
    ],
  },
];

/** Starts fetching the code of the page at `pathname`; errors surface when the page renders. */
export function preloadPage(pathname: string) {
  for (const match of matchRoutes(routes, pathname) ?? []) {
    const handle = match.route.handle as PageHandle | undefined;
    handle?.preload().catch(() => {});
  }
}
