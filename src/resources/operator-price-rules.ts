// The operator area's price rules (/v1/operator/price-rules): the global price list and each
// organization's own, every version with its status (active, scheduled, ended), newest first. A
// new price is a new rule from its valid_from on (which may be in the past); rules are never
// changed or deleted. The list is filtered by `organization_uuid` (an organization's uuid or
// "global"; none: all). Provider operators only.
import { TagsOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { OPERATOR_GROUP } from "./operator-organizations";
import { type ConsoleResource, OPERATORS } from "./types";

export const operatorPriceRules: ConsoleResource = {
  name: "operator-price-rules",
  list: "/operator/price-rules",
  meta: {
    label: "Price Rules",
    icon: createElement(TagsOutlined),
    siderGroup: OPERATOR_GROUP,
    api: { path: "/v1/operator/price-rules", idField: "price_rule_uuid", list: { rows: "price_rules" } },
    access: { list: OPERATORS, create: OPERATORS },
  },
  pages: {
    list: () => import("../pages/operator/price-rules-list-page").then((m) => m.OperatorPriceRulesListPage),
  },
};
