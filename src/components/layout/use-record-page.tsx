// A record's own page (a workspace, an eval run, an organization), read the one way: Refine's
// useShow on the route's id (its load errors are the page's to show, not a notification), the way
// back to the resource's list, and what to show until the record is there (recordFallback).
import { type BaseRecord, type HttpError, type MetaQuery, useShow } from "@refinedev/core";
import { BackLink } from "./back-link";
import { recordFallback } from "./record-fallback";

type Options = {
  resource: string;
  /** The list's name in "Back to …". */
  listLabel: string;
  notFound: string;
  failed: string;
  missingStatuses?: readonly number[];
  meta?: MetaQuery;
  staleTime?: number;
};

export function useRecordPage<T extends BaseRecord>(o: Options) {
  const { query, result: record } = useShow<T, HttpError>({
    resource: o.resource,
    meta: o.meta,
    errorNotification: false,
    queryOptions: o.staleTime === undefined ? undefined : { staleTime: o.staleTime },
  });
  const backLink = <BackLink resource={o.resource} label={o.listLabel} />;
  const fallback = recordFallback({ query, found: !!record, backLink, ...o });
  return { record, backLink, fallback };
}
