// TanStack Query defaults for Refine. Client errors (4xx) are answers, not glitches: retrying
// them only delays the message. Other failures get one retry.
import type { RefineProps } from "@refinedev/core";
import type { QueryClientConfig } from "@tanstack/react-query";
import type { CurrentUserSource } from "./current-user";
import { type Declared, FirstAnswersQueryClient, type ProviderUrls } from "./first-answers";
import { knownAnswers } from "./known-answers";

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

/** The console's client: those defaults, and queries that start with the answers read early or
 * already known from the current user. */
export function consoleReactQuery(
  urls: ProviderUrls,
  resources: readonly Declared[],
  currentUser: Pick<CurrentUserSource, "peek">,
): ReactQueryOptions {
  const known = knownAnswers(currentUser);
  return { clientConfig: new FirstAnswersQueryClient(clientConfig, { urls, resources, known }) };
}
