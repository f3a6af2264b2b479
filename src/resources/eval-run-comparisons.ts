// Eval runs side by side (GET /v1/eval-runs/compare): 2 to 10 runs chosen on the Eval Runs list,
// their cost, outcomes and differences from the first. Reached from that list only, so not a
// sider entry; administrators only, like the runs themselves.
import { DiffOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { ADMINS, type ConsoleResource } from "./types";

export const evalRunComparisons: ConsoleResource = {
  name: "eval-run-comparisons",
  // A static segment: the router ranks it before the run page's "/eval-runs/:id".
  list: "/eval-runs/compare",
  meta: {
    label: "Compare",
    icon: createElement(DiffOutlined),
    hide: true,
    api: { path: "/v1/eval-runs/compare", idField: "eval_run_uuid", list: { rows: "runs" } },
    access: { list: ADMINS },
  },
  pages: {
    list: () => import("../pages/eval-runs/compare-page").then((m) => m.EvalRunComparePage),
  },
};
