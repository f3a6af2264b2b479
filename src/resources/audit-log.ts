// The organization's audit trail (GET /v1/audit-log): administrators read it, filter it and export
// it as CSV; nobody changes it (the log is append-only), and members do not see it at all.
import { AuditOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { AUDIT_PAGE_SIZE } from "../lib/page-sizes";
import { ADMINS, type ConsoleResource, PRODUCT_API_PAGING } from "./types";

export const auditLog: ConsoleResource = {
  name: "audit-log",
  list: "/organization/audit-log",
  meta: {
    label: "Audit Log",
    icon: createElement(AuditOutlined),
    api: {
      path: "/v1/audit-log",
      idField: "audit_entry_id",
      list: {
        rows: "entries",
        total: "total",
        paging: PRODUCT_API_PAGING,
      },
    },
    access: { list: ADMINS },
  },
  firstList: { pageSize: AUDIT_PAGE_SIZE },
  pages: {
    list: () => import("../pages/audit-log/audit-log-page").then((m) => m.AuditLogPage),
  },
};
