// The billing page's usage records: paged, sorted and filtered by the server (administrators).
import { allow, hiddenResource } from "./define";
import { ADMINS, PRODUCT_API_PAGING } from "./types";

export const usageRecords = hiddenResource(
  "usage-records",
  "Usage Records",
  {
    path: "/v1/usage/records",
    idField: "usage_event_uuid",
    list: { rows: "records", total: "total", paging: PRODUCT_API_PAGING, sort: "sort" },
  },
  allow(ADMINS, "list"),
);
