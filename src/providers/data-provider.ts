// The console's Refine data providers: "default" on the product API (/v1, bearer token) and
// "identity" on the identity service's client API (/api/fe/v3, session cookie). A resource picks
// one with meta.dataProviderName; both read paths and shapes from the resource's declaration.
import type { DataProvider } from "@refinedev/core";
import type { ConsoleConfig } from "../lib/console-config";
import type { DataProviderName } from "../resources/types";
import type { ApiFetch } from "./http";
import { createIdentityFetch, identityClientUrl } from "./identity-fetch";
import { createRestDataProvider } from "./rest-data-provider";

export type ConsoleDataProviders = Record<DataProviderName, DataProvider>;

export function createDataProviders(
  config: Pick<ConsoleConfig, "apiUrl" | "authUrl">,
  apiFetch: ApiFetch,
): ConsoleDataProviders {
  return {
    default: createRestDataProvider({ apiUrl: config.apiUrl, send: apiFetch }),
    identity: createRestDataProvider({
      apiUrl: identityClientUrl(config.authUrl),
      send: createIdentityFetch({ authUrl: config.authUrl }),
    }),
  };
}
