// The shape of a resource declaration: everything the console knows about one kind of data, in
// one place. Routes and the sider read `list/show/create/edit` and `meta.label/icon`; the data
// providers read `meta.api`; the access-control provider reads `meta.access`; the route tree reads
// `pages`.
import type { CrudSort, MetaQuery, ResourceProps } from "@refinedev/core";
import type { ComponentType, ReactNode } from "react";
import type { CurrentUser } from "../providers/current-user-types";

/**
 * A user's roles: their organization role (admin or member) and, for the provider's own staff,
 * "operator" (a provider operator, `is_operator` of the current user), who may work across every
 * organization. A customer is never an operator, whatever their organization role.
 */
export type Role = "admin" | "member" | "operator";
export type ResourceAction = "list" | "show" | "create" | "edit" | "delete";

/** Every organization user: administrators and members. */
export const EVERYONE: readonly Role[] = ["admin", "member"];
export const ADMINS: readonly Role[] = ["admin"];
/** Provider operators only: the operator area, hidden from every customer. */
export const OPERATORS: readonly Role[] = ["operator"];

/** The data providers registered with Refine; "default" is the product API (/v1). */
export type DataProviderName = "default" | "identity";

/**
 * How a resource maps onto its HTTP API. Paths are templates: `{name}` is filled from the call's
 * meta (the hook's meta, merged by Refine with the route's parameters), `{id}` from the record id.
 */
export type ResourceApi = {
  /** The collection: GET lists, POST creates. */
  path: string;
  /** One record: GET reads, PUT updates, DELETE deletes; `${path}/{id}` when not given. */
  itemPath?: string;
  /** The field that identifies a record; copied to Refine's `id`. */
  idField: string;
  /** How the list endpoint pages, sorts and filters, and where its rows and total are. */
  list?: ListApi;
  /** Changes made by another call than the REST default above. */
  calls?: Partial<Record<"create" | "update" | "delete", ApiCall>>;
};

/** One change call: its method and path, and where the values go. */
export type ApiCall = {
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  /** A path template like ResourceApi.path ({id} is the record id). */
  path: string;
  /** Fields added to the JSON body, as templates ({"org_id": "{orgId}", "user_id": "{id}"}). */
  body?: Record<string, string>;
  /** The call's values go as query parameters instead of in the JSON body. */
  valuesInQuery?: boolean;
};

export type ListApi = {
  /** The key of the rows in the answer; otherwise a bare array, `data` or `items`. */
  rows?: string;
  /** The key of the total count; otherwise the number of rows. */
  total?: string;
  /** Server-side paging: the query parameter names and the number of the first page. */
  paging?: { page: string; pageSize: string; firstPage: 0 | 1 };
  /** The sort parameter: "field" ascending, "-field" descending. */
  sort?: string;
  /** Filter fields sent under another query parameter name (others go under their own name). */
  filterParams?: Record<string, string>;
};

/** The product API's numbered pages: `page` from 1 and `page_size` (contract/paging.ts). */
export const PRODUCT_API_PAGING: NonNullable<ListApi["paging"]> = {
  page: "page",
  pageSize: "page_size",
  firstPage: 1,
};

export type ConsoleResourceMeta = {
  label: string;
  icon?: ReactNode;
  /** Not a sider entry (no page of its own, or reached from another page). */
  hide?: boolean;
  /** The sider group the entry sits in, under this title (e.g. "Operator"); none: the main list. */
  siderGroup?: string;
  dataProviderName?: DataProviderName;
  api?: ResourceApi;
  /** Who may do what; an action not listed is allowed to nobody. */
  access: Partial<Record<ResourceAction, readonly Role[]>>;
};

export type PageLoader = () => Promise<ComponentType>;

export type ConsoleResource = ResourceProps & {
  meta: ConsoleResourceMeta;
  /** The page components of the resource's routes, loaded on first use (one chunk each). */
  pages?: Partial<Record<"list" | "show" | "create" | "edit", PageLoader>>;
  /** Code to fetch at the first idle moment after the list page mounts (e.g. a heavy chart). */
  prefetch?: () => void;
  /**
   * GETs (custom calls, by URL) the list page reads first, started by the auth gate as soon as a
   * visit landing on the page has a session and a user allowed to see it (components/auth/first-reads),
   * with the same useCustom parameters as the page.
   */
  firstReads?: readonly string[];
  /** The list page's table, whose first page the auth gate asks for in the same way. */
  firstList?: FirstList;
};

/**
 * A list page's table as its useListTable asks for it (components/table/use-list-table.ts): the
 * same parameters give the same query key, so the page's table finds its first page in the cache.
 */
export type FirstList = {
  pageSize: number;
  /** The table's initial server-side sort; none: unsorted (`sorters: { mode: "off" }`). */
  sorters?: CrudSort[];
  /** The table's meta, from the signed-in user (e.g. the organization its calls name). */
  meta?: (user: CurrentUser) => MetaQuery | undefined;
};
