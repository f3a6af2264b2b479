// The billing and usage dashboard at "/": administrators only. Its data are billing-cycles,
// usage-records and the usage summary/series calls.
import { DollarOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { stackedBars } from "../pages/billing/stacked-bars-chunk";
import { ADMINS, type ConsoleResource } from "./types";

/** The organization's billing cycles: the page's first read (the usage calls name one of them). */
export const BILLING_CYCLES_URL = "/v1/accounts/organization/billingcycles";

export const billing: ConsoleResource = {
  name: "billing",
  list: "/",
  meta: { label: "Billing & Usage", icon: createElement(DollarOutlined), access: { list: ADMINS } },
  pages: { list: () => import("../pages/billing/billing-page").then((m) => m.BillingPage) },
  firstReads: [BILLING_CYCLES_URL],
  // The chart's chunk (about 490 KB gzip) downloads and compiles while the page's data calls are
  // under way instead of after the series arrived; only where the chart is shown (768 px and up).
  prefetch: () => {
    if (window.matchMedia?.("(min-width: 768px)").matches) {
      stackedBars.preload().catch(() => {});
    }
  },
};
