// The signed-in user's personal API keys, kept by the identity service (/api/fe/v3). Everyone
// manages their own. Pages are zero-based there; the key search is `api_key_search`.
import { KeyOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { API_KEY_PAGE_SIZE } from "../lib/page-sizes";
import { type ConsoleResource, EVERYONE } from "./types";

export const apiKeys: ConsoleResource = {
  name: "api-keys",
  list: "/account/api-keys",
  meta: {
    label: "Personal API Keys",
    icon: createElement(KeyOutlined),
    dataProviderName: "identity",
    api: {
      path: "/personal_api_keys",
      itemPath: "/api_keys/{id}",
      idField: "api_key_id",
      list: {
        rows: "api_keys",
        total: "total_api_keys",
        paging: { page: "page_number", pageSize: "page_size", firstPage: 0 },
        filterParams: { api_key_id: "api_key_search" },
      },
      calls: { create: { method: "POST", path: "/api_keys" } },
    },
    access: { list: EVERYONE, create: EVERYONE, delete: EVERYONE },
  },
  pages: { list: () => import("../pages/api-keys/api-keys-page").then((m) => m.ApiKeysPage) },
  firstList: { pageSize: API_KEY_PAGE_SIZE },
};
