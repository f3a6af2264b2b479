// TanStack Query defaults for Refine. Client errors (4xx) are answers, not glitches: retrying
// them only delays the message. Other failures get one retry.
import type { RefineProps } from "@refinedev/core";
import type { QueryClientConfig } from "@tanstack/react-query";
import { FirstAnswersQueryClient } from "./first-answers";

type Declared = ConstructorParameters<typeof FirstAnswersQueryClient>[1]["resources"][number];

type ReactQueryOptions = NonNullable<NonNullable<RefineProps["options"]>["reactQuery"]>;

export function shouldRetry(failureCount: number, error: unknown): boolean {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return false;
  return failureCount < 1;
}

export const reactQueryOptions: ReactQueryOptions = {
  clientConfig: {
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        refetchOnWindowFocus: false,
      },
    },
  },
};

/** The console's client: those defaults, and queries that start with the answers read early. */
export function consoleReactQuery(apiUrl: string, resources: readonly Declared[]): ReactQueryOptions {
  const config = reactQueryOptions.clientConfig as QueryClientConfig;
  return { clientConfig: new FirstAnswersQueryClient(config, { apiUrl, resources }) };
}
