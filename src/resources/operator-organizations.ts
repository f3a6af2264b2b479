// The operator area's organizations (GET /v1/operator/organizations): every customer organization,
// searched by name or slug and paged by the server, each opening its page with its price rules,
// billing cycles and payments. Provider operators only; customers never see it (the API answers
// them 403).
import { BankOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { type ConsoleResource, OPERATORS, PRODUCT_API_PAGING } from "./types";

/** The sider group of the operator area. */
export const OPERATOR_GROUP = "Operator";

export const operatorOrganizations: ConsoleResource = {
  name: "operator-organizations",
  list: "/operator/organizations",
  show: "/operator/organizations/:id",
  meta: {
    label: "Organizations",
    icon: createElement(BankOutlined),
    siderGroup: OPERATOR_GROUP,
    api: {
      path: "/v1/operator/organizations",
      itemPath: "/v1/operator/organizations/{id}",
      idField: "organization_uuid",
      list: {
        rows: "organizations",
        total: "total_count",
        paging: PRODUCT_API_PAGING,
        // A search by name (the list page, or a select's typed text) matches name or slug.
        filterParams: { name: "search" },
      },
    },
    access: { list: OPERATORS, show: OPERATORS },
  },
  pages: {
    list: () =>
      import("../pages/operator/organizations-list-page").then((m) => m.OperatorOrganizationsListPage),
    show: () =>
      import("../pages/operator/organization-show-page").then((m) => m.OperatorOrganizationShowPage),
  },
};
