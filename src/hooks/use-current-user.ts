// Every reader of the current user goes through this hook so they share one query with the same
// freshness (5 min) and retention (30 min); mixing options would refetch on every mount.
import { type HttpError, useGetIdentity } from "@refinedev/core";
import { CURRENT_USER_GC_MS, CURRENT_USER_STALE_MS } from "../providers/current-user";
import type { CurrentUser } from "../providers/current-user-types";

export function useCurrentUser() {
  return useGetIdentity<CurrentUser>({
    queryOptions: { staleTime: CURRENT_USER_STALE_MS, gcTime: CURRENT_USER_GC_MS },
  }) as ReturnType<typeof useGetIdentity<CurrentUser>> & { error: HttpError | null };
}
