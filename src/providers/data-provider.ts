// Refine data provider over the product API (/v1). Resources map to paths by name unless their
// meta names one (meta.apiPath); list shapes differ per endpoint, so getList accepts a bare array
// or an object with the rows under `data`/`items` and an optional `total`.
//
// Two resources need more than a path:
// - "workspace-members" lives under its workspace (meta.workspaceId); a member is added with
//   ?user_email= and removed by email.
// - "api-keys" (the user's personal API keys) lives on the identity service; the hooks name its
//   address in meta.identityUrl. Pages are zero-based there and one-based in Refine.
// - "usage-records" (the billing page's records table) is paged, sorted and filtered server-side.
import type { BaseRecord, CrudFilter, DataProvider } from "@refinedev/core";
import { API_KEY_PAGE_SIZE, DEFAULT_EXPIRATION, isExpirationOption } from "../lib/api-keys";
import { recordsQuery } from "../lib/billing/filters";
import type { ApiFetch, QueryValue } from "./http";
import { createIdentityApi, type IdentityApi } from "./identity-api";

// Refine merges the resource's meta with the hook's meta before calling the provider.
type Meta = Record<string, unknown> | undefined;

function metaQuery(meta: Meta): Record<string, QueryValue> | undefined {
  return typeof meta?.query === "object" && meta.query !== null
    ? (meta.query as Record<string, QueryValue>)
    : undefined;
}

export const WORKSPACE_MEMBERS = "workspace-members";
export const API_KEYS = "api-keys";
export const USAGE_RECORDS = "usage-records";

export function resourcePath(resource: string, meta: Meta): string {
  if (resource === WORKSPACE_MEMBERS) {
    const workspaceId = meta?.workspaceId;
    if (typeof workspaceId !== "string" || workspaceId === "") {
      throw new Error("workspace-members needs meta.workspaceId");
    }
    return `/v1/workspaces/${encodeURIComponent(workspaceId)}/members`;
  }
  return typeof meta?.apiPath === "string" ? meta.apiPath : `/v1/${resource}`;
}

function itemPath(resource: string, id: string | number, meta: Meta): string {
  return `${resourcePath(resource, meta).replace(/\/+$/, "")}/${encodeURIComponent(String(id))}`;
}

export function toListResult<T>(body: unknown): { data: T[]; total: number } {
  if (Array.isArray(body)) return { data: body as T[], total: body.length };
  if (typeof body === "object" && body !== null) {
    const record = body as { data?: unknown; items?: unknown; total?: unknown };
    const rows = Array.isArray(record.data) ? record.data : Array.isArray(record.items) ? record.items : [];
    const total = typeof record.total === "number" ? record.total : rows.length;
    return { data: rows as T[], total };
  }
  return { data: [], total: 0 };
}

/** The text of the first non-empty filter: the key search. */
export function searchText(filters: readonly CrudFilter[] | undefined): string | undefined {
  for (const filter of filters ?? []) {
    if ("field" in filter && typeof filter.value === "string" && filter.value.trim() !== "") {
      return filter.value.trim();
    }
  }
  return undefined;
}

type IdentityFactory = (authUrl: string) => IdentityApi;

export function createDataProvider(
  apiUrl: string,
  apiFetch: ApiFetch,
  { identityApi = (authUrl) => createIdentityApi({ authUrl }) }: { identityApi?: IdentityFactory } = {},
): DataProvider {
  const identities = new Map<string, IdentityApi>();
  const identity = (meta: Meta): IdentityApi => {
    const url = meta?.identityUrl;
    if (typeof url !== "string" || url === "") throw new Error("api-keys needs meta.identityUrl");
    let api = identities.get(url);
    if (!api) {
      api = identityApi(url);
      identities.set(url, api);
    }
    return api;
  };

  return {
    getApiUrl: () => apiUrl,

    getList: async ({ resource, meta, pagination, filters, sorters }) => {
      if (resource === USAGE_RECORDS) {
        const body = await apiFetch<{ records?: BaseRecord[]; total?: number }>("/v1/usage/records", {
          query: recordsQuery({ pagination, sorters, filters }),
        });
        const rows = Array.isArray(body?.records) ? body.records : [];
        return {
          data: rows.map((row) => ({ ...row, id: row.usage_event_uuid })) as never[],
          total: typeof body?.total === "number" ? body.total : rows.length,
        };
      }
      if (resource === API_KEYS) {
        const pageSize = pagination?.pageSize ?? API_KEY_PAGE_SIZE;
        const page = await identity(meta).listPersonalApiKeys({
          pageNumber: Math.max(0, (pagination?.currentPage ?? 1) - 1),
          pageSize,
          search: searchText(filters),
        });
        const rows = Array.isArray(page?.api_keys) ? page.api_keys : [];
        return {
          data: rows.map((key) => ({ ...key, id: key.api_key_id })) as never[],
          total: typeof page?.total_api_keys === "number" ? page.total_api_keys : rows.length,
          hasMoreResults: page?.has_more_results === true,
        };
      }
      const body = await apiFetch(resourcePath(resource, meta), { query: metaQuery(meta) });
      return toListResult(body);
    },

    getOne: async ({ resource, id, meta }) => {
      const data = await apiFetch<BaseRecord>(itemPath(resource, id, meta), { query: metaQuery(meta) });
      return { data: data as never };
    },

    create: async ({ resource, variables, meta }) => {
      if (resource === API_KEYS) {
        const option =
          (variables as { expiration_option?: unknown })?.expiration_option ?? DEFAULT_EXPIRATION;
        // An unknown option still goes to the service, which answers with its own error.
        const created = await identity(meta).createApiKey(
          (isExpirationOption(option) ? option : String(option)) as never,
        );
        return { data: { ...created, id: created.api_key_id } as never };
      }
      if (resource === WORKSPACE_MEMBERS) {
        const email = (variables as { user_email?: unknown })?.user_email;
        const data = await apiFetch<BaseRecord>(resourcePath(resource, meta), {
          method: "POST",
          query: { ...metaQuery(meta), user_email: typeof email === "string" ? email : undefined },
        });
        return { data: (data ?? { email }) as never };
      }
      const data = await apiFetch<BaseRecord>(resourcePath(resource, meta), {
        method: "POST",
        body: variables,
        query: metaQuery(meta),
      });
      return { data: data as never };
    },

    update: async ({ resource, id, variables, meta }) => {
      const data = await apiFetch<BaseRecord>(itemPath(resource, id, meta), {
        method: "PUT",
        body: variables,
        query: metaQuery(meta),
      });
      return { data: data as never };
    },

    deleteOne: async ({ resource, id, meta }) => {
      if (resource === API_KEYS) {
        await identity(meta).deleteApiKey(String(id));
        return { data: { id } as never };
      }
      const data = await apiFetch<BaseRecord>(itemPath(resource, id, meta), {
        method: "DELETE",
        query: metaQuery(meta),
      });
      return { data: (data ?? { id }) as never };
    },

    // useCustom/useCustomMutation: `url` is a path under apiUrl ("/v1/usage/") or an absolute URL
    // on the same API host.
    custom: async ({ url, method, query, payload, headers }) => {
      const path = url.startsWith(apiUrl) ? url.slice(apiUrl.length) : url;
      const verb = method.toUpperCase() as "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
      const data = await apiFetch(path, {
        method: verb,
        query: query as Record<string, QueryValue> | undefined,
        body: verb === "GET" ? undefined : payload,
        headers: headers as Record<string, string> | undefined,
      });
      return { data: data as never };
    },
  };
}
