// The operator area's jobs (/v1/operator/jobs): heavy work run off the request (re-rating after a
// price change, usage imports, partition archive and restore), running and recent ones with their
// progress, newest first; each opens its own page. Read only. Provider operators only.
import { ScheduleOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { OPERATOR_GROUP } from "./operator-organizations";
import { type ConsoleResource, OPERATORS } from "./types";

export const operatorJobs: ConsoleResource = {
  name: "operator-jobs",
  list: "/operator/jobs",
  show: "/operator/jobs/:id",
  meta: {
    label: "Jobs",
    icon: createElement(ScheduleOutlined),
    siderGroup: OPERATOR_GROUP,
    api: { path: "/v1/operator/jobs", idField: "job_uuid", list: { rows: "jobs" } },
    access: { list: OPERATORS, show: OPERATORS },
  },
  pages: {
    list: () => import("../pages/operator/jobs-list-page").then((m) => m.OperatorJobsListPage),
    show: () => import("../pages/operator/job-show-page").then((m) => m.OperatorJobShowPage),
  },
};
