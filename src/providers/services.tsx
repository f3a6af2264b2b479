// Run-time dependencies the console is built around, created once at start-up (main.tsx) or by a
// test: the loaded config, the auth provider on the identity client, and page navigation.
import { createContext, type ReactNode, useContext } from "react";
import type { ConsoleConfig } from "../lib/console-config";
import type { ConsoleAuthProvider, PageNavigator } from "./auth-provider";
import type { CurrentUserSource } from "./current-user";
import type { ApiFetch } from "./http";

export type ConsoleServices = {
  config: ConsoleConfig;
  authProvider: ConsoleAuthProvider;
  currentUser: CurrentUserSource;
  apiFetch: ApiFetch;
  navigator: PageNavigator;
};

const ServicesContext = createContext<ConsoleServices | null>(null);

export function ServicesProvider({ services, children }: { services: ConsoleServices; children: ReactNode }) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): ConsoleServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error("useServices must be used inside <ServicesProvider>");
  return services;
}
