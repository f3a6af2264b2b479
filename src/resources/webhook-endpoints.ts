// The organization's webhook endpoints (/v1/webhook-endpoints): administrators add the URLs its
// events (budget alerts) are POSTed to, change, disable, rotate and delete them, and read each
// one's delivery log. Members do not see them at all.
import { ApiOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { allow, allowAll, hiddenResource, patchUpdate } from "./define";
import { ADMINS, type ConsoleResource, PRODUCT_API_PAGING } from "./types";

export const webhookEndpoints: ConsoleResource = {
  name: "webhook-endpoints",
  list: "/organization/webhooks",
  show: "/organization/webhooks/:id",
  meta: {
    label: "Webhooks",
    icon: createElement(ApiOutlined),
    api: {
      path: "/v1/webhook-endpoints",
      idField: "endpoint_uuid",
      list: { rows: "endpoints" },
      calls: patchUpdate("/v1/webhook-endpoints"),
    },
    access: allowAll(ADMINS),
  },
  pages: {
    list: () => import("../pages/webhooks/webhooks-list-page").then((m) => m.WebhooksListPage),
    show: () => import("../pages/webhooks/webhook-show-page").then((m) => m.WebhookShowPage),
  },
};

/** One endpoint's delivery log (calls name the endpoint in meta.endpointId), newest first. */
export const webhookDeliveries = hiddenResource(
  "webhook-deliveries",
  "Webhook Deliveries",
  {
    path: "/v1/webhook-endpoints/{endpointId}/deliveries",
    idField: "delivery_uuid",
    list: { rows: "deliveries", total: "total", paging: PRODUCT_API_PAGING },
  },
  allow(ADMINS, "list"),
);
