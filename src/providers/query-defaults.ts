// TanStack Query defaults for Refine. Client errors (4xx) are answers, not glitches: retrying
// them only delays the message. Other failures get one retry.
import type { RefineProps } from "@refinedev/core";
import type { QueryClientConfig } from "@tanstack/react-query";
import { type Declared, FirstAnswersQueryClient } from "./first-answers";

type ReactQueryOptions = NonNullable<NonNullable<RefineProps["options"]>["reactQuery"]>;

export function shouldRetry(failureCount: number, error: unknown): boolean {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return false;
  return failureCount < 1;
}

const clientConfig: QueryClientConfig = {
  defaultOptions: {
    queries: {
      retry: shouldRetry,
      refetchOnWindowFocus: false,
    },
  },
};

/** The console's client: those defaults, and queries that start with the answers read early. */
export function consoleReactQuery(apiUrl: string, resources: readonly Declared[]): ReactQueryOptions {
  return { clientConfig: new FirstAnswersQueryClient(clientConfig, { apiUrl, resources }) };
}
