// Eval runs: the cost of each run of an eval, from the usage its events carry (GET /v1/eval-runs),
// and one run's figures, cost per operation and events. Administrators only, like the billing
// dashboard the figures come from; the records table there links each run's id here.
import { ExperimentOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { EVAL_RUN_PAGE_SIZE } from "../../contract/eval-run-paging";
import { ADMINS, type ConsoleResource, PRODUCT_API_PAGING } from "./types";

export const evalRuns: ConsoleResource = {
  name: "eval-runs",
  list: "/eval-runs",
  show: "/eval-runs/:id",
  meta: {
    label: "Eval Runs",
    icon: createElement(ExperimentOutlined),
    api: {
      path: "/v1/eval-runs",
      idField: "eval_run_uuid",
      list: {
        rows: "eval_runs",
        total: "total",
        paging: PRODUCT_API_PAGING,
        sort: "sort",
      },
    },
    access: { list: ADMINS, show: ADMINS },
  },
  firstList: { pageSize: EVAL_RUN_PAGE_SIZE, sorters: [{ field: "started_at", order: "desc" }] },
  pages: {
    list: () => import("../pages/eval-runs/eval-runs-list-page").then((m) => m.EvalRunsListPage),
    show: () => import("../pages/eval-runs/eval-run-show-page").then((m) => m.EvalRunShowPage),
  },
};
