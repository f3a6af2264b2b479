// The billing page's usage records: paged, sorted and filtered by the server (administrators).
import { ADMINS, type ConsoleResource } from "./types";

export const usageRecords: ConsoleResource = {
  name: "usage-records",
  meta: {
    label: "Usage Records",
    hide: true,
    api: {
      path: "/v1/usage/records",
      idField: "usage_event_uuid",
      list: {
        rows: "records",
        total: "total",
        paging: { page: "page", pageSize: "page_size", firstPage: 1 },
        sort: "sort",
      },
    },
    access: { list: ADMINS },
  },
};
