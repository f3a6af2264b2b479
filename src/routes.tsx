// The route tree. Refine sits at the root (its router bindings need the data router's context);
// the authenticated layout wraps every page; page errors render inside the layout.
import { ErrorComponent } from "@refinedev/antd";
import type { RouteObject } from "react-router";
import { RefineRoot } from "./App";
import { AdminOnly } from "./components/auth/admin-only";
import { AuthGate } from "./components/auth/auth-gate";
import { RouteError } from "./components/feedback/route-error";
import { AppLayout } from "./components/layout/app-layout";
import { AccountSettingsPage } from "./pages/account/account-settings-page";
import { ApiKeysPage } from "./pages/api-keys/api-keys-page";
import { BillingPage } from "./pages/billing/billing-page";
import { UsersPage } from "./pages/users/users-page";
import { WorkspaceListPage } from "./pages/workspaces/workspace-list-page";
import { WorkspaceShowPage } from "./pages/workspaces/workspace-show-page";

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
                element: (
                  <AdminOnly resource="billing">
                    <BillingPage />
                  </AdminOnly>
                ),
              },
              { path: "organization/workspaces", element: <WorkspaceListPage /> },
              // Refine infers the resource and its id from the ":id" of the resource's show route.
              { path: "workspace/:id", element: <WorkspaceShowPage /> },
              { path: "users", element: <UsersPage /> },
              { path: "account/api-keys", element: <ApiKeysPage /> },
              { path: "account/settings", element: <AccountSettingsPage /> },
              { path: "*", element: <ErrorComponent /> },
            ],
          },
        ],
      },
    ],
  },
];
