// The tables of an organization's operator page (its price rules, billing cycles, payments): read
// whole, then paged in the browser `pageSize` rows at a time (or shown whole), kept out of the URL:
// three tables share the page, and on the URL they would fight over the same keys.
import { useTable } from "@refinedev/antd";
import type { BaseRecord, CrudFilter, HttpError } from "@refinedev/core";

type Options = {
  resource: string;
  /** What the resource's path names, e.g. `{ organizationId }`. */
  meta?: Record<string, string>;
  /** Rows a page; none: the whole list on one. */
  pageSize?: number;
  /** Filters the API applies to every read (e.g. one organization's rules). */
  permanent?: CrudFilter[];
};

export function useOrganizationTable<T extends BaseRecord>({ resource, meta, pageSize, permanent }: Options) {
  return useTable<T, HttpError>({
    resource,
    meta,
    syncWithLocation: false,
    pagination: pageSize ? { currentPage: 1, pageSize, mode: "client" } : { mode: "off" },
    sorters: { mode: "off" },
    filters: permanent ? { mode: "server", permanent } : { mode: "off" },
    errorNotification: false,
  });
}
