// The billing and usage dashboard at "/": administrators only. Its data are billing-cycles,
// usage-records and the usage summary/series calls.
import { DollarOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { BILLING_CYCLES_PATH } from "../lib/billing/cycles-path";
import { DESKTOP_QUERY } from "../lib/breakpoints";
import { preloadStackedBars } from "../pages/billing/stacked-bars-chunk";
import { ADMINS, type ConsoleResource } from "./types";

export const billing: ConsoleResource = {
  name: "billing",
  list: "/",
  meta: { label: "Billing & Usage", icon: createElement(DollarOutlined), access: { list: ADMINS } },
  pages: { list: () => import("../pages/billing/billing-page").then((m) => m.BillingPage) },
  firstReads: [BILLING_CYCLES_PATH],
  // The chart's chunk downloads and compiles while the page's data calls are under way instead of
  // after the series arrived; only where the chart is shown (768 px and up).
  prefetch: () => {
    if (window.matchMedia?.(DESKTOP_QUERY).matches) preloadStackedBars();
  },
};
