// The budgets' and open reservations' reads: both move with every ingested batch (holds also
// expire by themselves), so they are read again whenever a page showing them opens (the last
// answer stays on screen meanwhile) and every minute while it is open.
import { type BaseRecord, type HttpError, useList } from "@refinedev/core";

export const LIVE_REFRESH_MS = 60_000;

export function useLiveList<T extends BaseRecord>(resource: string) {
  return useList<T, HttpError>({
    resource,
    pagination: { mode: "off" },
    errorNotification: false,
    queryOptions: { staleTime: 0, refetchInterval: LIVE_REFRESH_MS },
  });
}
