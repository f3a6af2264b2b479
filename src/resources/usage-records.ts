// The billing page's usage records: paged, sorted and filtered by the server (administrators).
import { ADMINS, type ConsoleResource, PRODUCT_API_PAGING } from "./types";

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
        paging: PRODUCT_API_PAGING,
        sort: "sort",
      },
    },
    access: { list: ADMINS },
  },
};
