// Wiring only: services → Refine providers → routes.
import { useNotificationProvider } from "@refinedev/antd";
import { Refine } from "@refinedev/core";
import { DocumentTitleHandler } from "@refinedev/react-router";
import { useMemo } from "react";
import { Outlet, RouterProvider } from "react-router";
import { documentTitle } from "./lib/document-title";
import { createAccessControlProvider } from "./providers/access-control-provider";
import { createDataProviders } from "./providers/data-provider";
import { queryClientConfig } from "./providers/query-defaults";
import { routerProvider } from "./providers/router-provider";
import { type ConsoleServices, ServicesProvider, useServices } from "./providers/services";
import { refineResources } from "./resources";

type Router = Parameters<typeof RouterProvider>[0]["router"];

export function App({ services, router }: { services: ConsoleServices; router: Router }) {
  return (
    <ServicesProvider services={services}>
      <RouterProvider router={router} />
    </ServicesProvider>
  );
}

export function RefineRoot() {
  const { config, authProvider, currentUser, apiFetch } = useServices();
  const dataProvider = useMemo(() => createDataProviders(config, apiFetch), [config, apiFetch]);
  const accessControlProvider = useMemo(() => createAccessControlProvider(currentUser), [currentUser]);

  return (
    <Refine
      routerProvider={routerProvider}
      dataProvider={dataProvider}
      authProvider={authProvider}
      accessControlProvider={accessControlProvider}
      notificationProvider={useNotificationProvider}
      resources={refineResources}
      options={{
        disableTelemetry: true,
        // Tables keep their paging, sorting and filters in the URL unless they opt out.
        syncWithLocation: true,
        reactQuery: { clientConfig: queryClientConfig },
        title: { text: config.productName },
      }}
    >
      <Outlet />
      <DocumentTitleHandler
        handler={({ resource, action }) =>
          documentTitle(
            resource?.name ? { label: resource.meta?.label, action } : undefined,
            config.productName,
          )
        }
      />
    </Refine>
  );
}
