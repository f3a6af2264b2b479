// TanStack Query defaults for Refine. Client errors (4xx) are answers, not glitches: retrying
// them only delays the message. Other failures get one retry.
import type { QueryClientConfig } from "@tanstack/react-query";

export function shouldRetry(failureCount: number, error: unknown): boolean {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return false;
  return failureCount < 1;
}

export const queryClientConfig: QueryClientConfig = {
  defaultOptions: {
    queries: {
      retry: shouldRetry,
      refetchOnWindowFocus: false,
    },
  },
};
