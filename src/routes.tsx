// The route tree, built from the resource declarations. Refine sits at the root (its router
// bindings need the data router's context); the authenticated layout wraps every page; each
// resource route is guarded by the access-control provider; page errors render inside the layout.
//
// The shell (Refine, auth gate, layout, current user) is one chunk, loaded beside the entry's
// config and session requests (main.tsx); each page is its own chunk, so the first load fetches
// only the page it shows. render-console.tsx starts fetching the matched page's chunk as soon as
// the shell runs (`preloadPage`), in parallel with the session check, instead of after it.

import { Suspense } from "react";
import { matchRoutes, type RouteObject } from "react-router";
import { RefineRoot } from "./App";
import { AuthGate } from "./components/auth/auth-gate";
import { ResourceGuard } from "./components/auth/resource-guard";
import { LoadingScreen } from "./components/feedback/loading-screen";
import { RouteError } from "./components/feedback/route-error";
import { AppLayout } from "./components/layout/app-layout";
import { IdlePrefetch } from "./components/layout/idle-prefetch";
import { NotFoundPage } from "./components/not-found";
import { preloadable } from "./lib/preloadable";
import { resources } from "./resources";
import type { ConsoleResource, PageLoader } from "./resources/types";

type PageHandle = { preload: () => Promise<unknown> };

/** A page whose code is fetched once, on preload or first render; a failed fetch throws into the
 * route's error element, whose "Reload page" fetches again. A page whose chunk is already here (the
 * landing page's, preloaded by render-console.tsx) renders without suspending. `name` keys the
 * page's Suspense boundary: a new boundary shows its fallback at once, whereas the router's
 * navigation runs in a transition that would keep the previous page on screen (under the new URL)
 * while the chunk loads. */
function lazyPage(name: string, load: PageLoader) {
  const page = preloadable(load);
  const element = (
    <Suspense key={name} fallback={<LoadingScreen fullScreen={false} />}>
      <page.Component />
    </Suspense>
  );
  const handle: PageHandle = { preload: page.preload };
  return { element, handle };
}

const ACTIONS = ["list", "show", "create", "edit"] as const;

/** One route per page a resource declares, at the resource's route for that action. */
function resourceRoutes(resource: ConsoleResource): RouteObject[] {
  return ACTIONS.flatMap((action) => {
    const path = resource[action];
    const load = resource.pages?.[action];
    if (typeof path !== "string" || !load) return [];
    const page = lazyPage(`${resource.name}-${action}`, load);
    const element = (
      <ResourceGuard key={`${resource.name}-${action}`} resource={resource.name} action={action}>
        {action === "list" && resource.prefetch ? <IdlePrefetch run={resource.prefetch} /> : null}
        {page.element}
      </ResourceGuard>
    );
    const route = path === "/" ? { index: true as const } : { path: path.replace(/^\//, "") };
    return [{ ...route, handle: page.handle, element }];
  });
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
            children: [...resources.flatMap(resourceRoutes), { path: "*", element: <NotFoundPage /> }],
          },
        ],
      },
    ],
  },
];

/** Starts fetching the code of the page at `pathname`; settles once it is here or failed (errors
 * surface when the page renders). */
export function preloadPage(pathname: string): Promise<void> {
  const loads = (matchRoutes(routes, pathname) ?? []).map((match) =>
    (match.route.handle as PageHandle | undefined)?.preload(),
  );
  return Promise.allSettled(loads).then(() => {});
}
