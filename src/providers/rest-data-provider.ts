// A Refine data provider for any JSON HTTP API described by resource declarations. Refine merges
// the resource's meta (with its `api` declaration) and the route's parameters into every call's
// meta, so paths, the id field and the list's shape come from the declaration, and a nested path
// ("/v1/workspaces/{workspaceId}/members") is filled from the call's meta. Nothing here knows a
// resource by name: the transport (product API or identity service) is the only difference
// between the console's data providers.
import type { BaseRecord, CrudFilter, CrudSort, DataProvider, Pagination } from "@refinedev/core";
import type { ApiCall, ListApi, ResourceApi } from "../resources/types";
import type { ApiFetch, QueryValue } from "./http";

type Meta = Record<string, unknown> | undefined;
type Query = Record<string, QueryValue>;

function apiOf(resource: string, meta: Meta): ResourceApi {
  const api = meta?.api as ResourceApi | undefined;
  if (!api || typeof api.path !== "string") throw new Error(`Resource "${resource}" declares no api`);
  return api;
}

/** Fills `{name}` placeholders from `values` (the call's meta and the record id). */
function fill(template: string, values: Record<string, unknown>, encode: (text: string) => string): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = values[key];
    if ((typeof value !== "string" && typeof value !== "number") || value === "") {
      throw new Error(`${template} needs meta.${key}`);
    }
    return encode(String(value));
  });
}

const fillPath = (template: string, values: Record<string, unknown>) =>
  fill(template, values, encodeURIComponent);

function itemPath(api: ResourceApi, id: string | number, meta: Meta): string {
  const template = api.itemPath ?? `${api.path.replace(/\/+$/, "")}/{id}`;
  return fillPath(template, { ...meta, id });
}

type Change = "create" | "update" | "delete";

const DEFAULT_METHOD: Record<Change, ApiCall["method"]> = { create: "POST", update: "PUT", delete: "DELETE" };

/** The request of a change: the declared call, else POST to the collection, PUT/DELETE the item. */
function changeRequest(
  api: ResourceApi,
  change: Change,
  { id, values, meta }: { id?: string | number; values: Record<string, unknown> | undefined; meta: Meta },
) {
  const call = api.calls?.[change];
  const context = { ...meta, ...(id === undefined ? {} : { id }) };
  const path = call
    ? fillPath(call.path, context)
    : id === undefined
      ? fillPath(api.path, context)
      : itemPath(api, id, meta);
  const extra = Object.fromEntries(
    Object.entries(call?.body ?? {}).map(([field, template]) => [field, fill(template, context, String)]),
  );
  const body = values || call?.body ? { ...values, ...extra } : undefined;
  const inQuery = call?.valuesInQuery === true;
  return {
    path,
    method: call?.method ?? DEFAULT_METHOD[change],
    query: inQuery ? { ...metaQuery(meta), ...(body as Query) } : metaQuery(meta),
    body: inQuery ? undefined : body,
  };
}

/** Extra query parameters a hook passes in meta.query (e.g. show_deleted). */
function metaQuery(meta: Meta): Query {
  return typeof meta?.query === "object" && meta.query !== null ? (meta.query as Query) : {};
}

/** Refine's paging, sorting and filters as the list endpoint's query parameters. */
function listQuery(
  list: ListApi | undefined,
  params: { pagination?: Pagination; sorters?: CrudSort[]; filters?: CrudFilter[] },
): Query {
  const query: Query = {};
  const { pagination, sorters, filters } = params;
  if (list?.paging && (pagination?.mode ?? "server") === "server") {
    query[list.paging.page] = Math.max(1, pagination?.currentPage ?? 1) - 1 + list.paging.firstPage;
    query[list.paging.pageSize] = pagination?.pageSize ?? 10;
  }
  const sorter = sorters?.[0];
  if (list?.sort && sorter) query[list.sort] = `${sorter.order === "desc" ? "-" : ""}${sorter.field}`;
  for (const filter of filters ?? []) {
    if (!("field" in filter)) continue;
    const value: unknown = filter.value;
    const name = list?.filterParams?.[filter.field] ?? filter.field;
    if (Array.isArray(value)) {
      if (value.length > 0) query[name] = value.map(String);
    } else if (value !== undefined && value !== null && String(value).trim() !== "") {
      query[name] = String(value).trim();
    }
  }
  return query;
}

/** The rows and total of a list answer: under the declared keys, else a bare array or `data`/`items`. */
function listRows(list: ListApi | undefined, body: unknown): { rows: unknown[]; total: number } {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const candidates = list?.rows ? [record[list.rows]] : [body, record.data, record.items];
  const rows = (candidates.find(Array.isArray) as unknown[] | undefined) ?? [];
  const total = record[list?.total ?? "total"];
  return { rows, total: typeof total === "number" ? total : rows.length };
}

const withId = (api: ResourceApi, row: unknown): BaseRecord => {
  const record = (typeof row === "object" && row !== null ? row : {}) as BaseRecord;
  const id = record[api.idField];
  return id === undefined ? record : { ...record, id };
};

/** A custom call's path on the API: its URL, relative to the API's when it is absolute. */
const customPath = (apiUrl: string, url: string) => (url.startsWith(apiUrl) ? url.slice(apiUrl.length) : url);

/** The GET a list call makes: its path and query. */
function listRequest(
  resource: string,
  params: { meta: Meta; pagination?: Pagination; sorters?: CrudSort[]; filters?: CrudFilter[] },
): { api: ResourceApi; path: string; query: Query } {
  const api = apiOf(resource, params.meta);
  return {
    api,
    path: fillPath(api.path, params.meta ?? {}),
    query: { ...metaQuery(params.meta), ...listQuery(api.list, params) },
  };
}

/** A list answer as getList hands it to Refine: the rows, each with its id, and the total. */
function listResult(api: ResourceApi, body: unknown) {
  const { rows, total } = listRows(api.list, body);
  return { data: rows.map((row) => withId(api, row)) as never[], total };
}

export function createRestDataProvider({ apiUrl, send }: { apiUrl: string; send: ApiFetch }): DataProvider {
  return {
    getApiUrl: () => apiUrl,

    getList: async ({ resource, meta, pagination, sorters, filters }) => {
      const { api, path, query } = listRequest(resource, { meta, pagination, sorters, filters });
      return listResult(api, await send(path, { query }));
    },

    getOne: async ({ resource, id, meta }) => {
      const api = apiOf(resource, meta);
      const data = await send(itemPath(api, id, meta), { query: metaQuery(meta) });
      return { data: withId(api, data) as never };
    },

    create: async ({ resource, variables, meta }) => {
      const api = apiOf(resource, meta);
      const values = (variables ?? {}) as Record<string, unknown>;
      const request = changeRequest(api, "create", { values, meta });
      const data = await send(request.path, request);
      // An endpoint that answers with no body created what it was sent.
      return { data: withId(api, data ?? values) as never };
    },

    update: async ({ resource, id, variables, meta }) => {
      const api = apiOf(resource, meta);
      const values = variables as Record<string, unknown>;
      const request = changeRequest(api, "update", { id, values, meta });
      const data = await send(request.path, request);
      return { data: withId(api, data ?? { ...values, [api.idField]: id }) as never };
    },

    deleteOne: async ({ resource, id, variables, meta }) => {
      const api = apiOf(resource, meta);
      const values = variables as Record<string, unknown> | undefined;
      const request = changeRequest(api, "delete", { id, values, meta });
      const data = await send(request.path, request);
      return { data: withId(api, data ?? { [api.idField]: id }) as never };
    },

    // useCustom/useCustomMutation: `url` is a path under apiUrl ("/v1/usage/summary") or an
    // absolute URL on the same host.
    custom: async ({ url, method, query, payload, headers }) => {
      const path = customPath(apiUrl, url);
      const verb = method.toUpperCase() as "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
      const data = await send(path, {
        method: verb,
        query: query as Query | undefined,
        body: verb === "GET" ? undefined : payload,
        headers: headers as Record<string, string> | undefined,
      });
      return { data: data as never };
    },
  };
}
