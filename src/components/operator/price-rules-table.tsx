// Price rules with their history, newest first (Refine's useTable props): what each one prices
// (price list, operation, eval type, modality, metric), its unit price and when it is in force,
// with its status. Spins while loading, says when there are none, shows a load error in place.
import { type HttpError, useLink, useMany, useNavigation } from "@refinedev/core";
import { Flex, Tag, Typography } from "antd";
import { formatUnitPrice } from "../../../contract/money";
import {
  dimensionLabel,
  formatRuleTime,
  type OperatorOrganization,
  PRICE_RULE_STATUS,
  type PriceRule,
  type PriceRuleStatus,
  ruleEvalTypeLabel,
  ruleMetricLabel,
} from "../../lib/operator";
import { operatorJobs } from "../../resources/operator-jobs";
import { operatorOrganizations } from "../../resources/operator-organizations";
import { formatColumn } from "../table/columns";
import { ListTable, type TableList } from "../table/list-table";

type Props = {
  list: TableList<PriceRule>;
  /** Show each rule's price list (global or its organization): the page lists several. */
  showScope?: boolean;
  emptyText: string;
};

/** The names of the organizations the rules on screen belong to. */
function useOrganizationNames(rules: readonly PriceRule[], enabled: boolean) {
  const ids = [...new Set(rules.flatMap((r) => (r.organization_uuid ? [r.organization_uuid] : [])))];
  const { result } = useMany<OperatorOrganization, HttpError>({
    resource: operatorOrganizations.name,
    ids,
    errorNotification: false,
    queryOptions: { enabled: enabled && ids.length > 0 },
  });
  return new Map((result.data ?? []).map((o) => [o.organization_uuid, o.name]));
}

export function PriceRulesTable({ list, showScope = false, emptyText }: Props) {
  const Link = useLink();
  const { showUrl } = useNavigation();
  const rules = (list.tableProps.dataSource ?? []) as readonly PriceRule[];
  const names = useOrganizationNames(rules, showScope);

  return (
    <ListTable<PriceRule>
      list={list}
      failed="The price rules could not be loaded."
      empty={emptyText}
      scroll={{ x: showScope ? 1165 : 1005 }}
      pager={{ one: "rule", single: true }}
      columns={[
        ...(showScope
          ? [
              {
                title: "Price list",
                dataIndex: "organization_uuid",
                key: "scope",
                width: 160,
                ellipsis: true,
                render: (org: string | null, rule: PriceRule) =>
                  org ? (
                    <Link to={showUrl(operatorOrganizations.name, org)}>{names.get(org) ?? org}</Link>
                  ) : rule.built_in ? (
                    <Tag title="Shipped with the product; any price an operator sets wins over it">
                      Global · default
                    </Tag>
                  ) : (
                    <Tag>Global</Tag>
                  ),
              },
            ]
          : []),
        {
          title: "Operation",
          dataIndex: "operation",
          key: "operation",
          width: 100,
          ellipsis: true,
          render: (v: string | null) => dimensionLabel(v),
        },
        {
          title: "Eval type",
          dataIndex: "eval_type",
          key: "eval_type",
          width: 140,
          render: (v: string | null) =>
            v ? (
              <Flex vertical gap={0}>
                <span>{ruleEvalTypeLabel(v)}</span>
                <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
                  {v}
                </Typography.Text>
              </Flex>
            ) : (
              ruleEvalTypeLabel(v)
            ),
        },
        {
          title: "Modality",
          dataIndex: "modality",
          key: "modality",
          width: 100,
          ellipsis: true,
          render: (v: string | null) => dimensionLabel(v),
        },
        {
          title: "Metric",
          dataIndex: "rule_metric",
          key: "rule_metric",
          width: 100,
          render: (v: PriceRule["rule_metric"]) => ruleMetricLabel(v),
        },
        {
          title: "Unit price",
          dataIndex: "unit_price_usd",
          key: "unit_price_usd",
          width: 100,
          align: "right" as const,
          render: (v: string) => formatUnitPrice(v),
        },
        formatColumn<PriceRule>("Valid from (UTC)", "valid_from", formatRuleTime, { width: 140 }),
        formatColumn<PriceRule>("Valid to (UTC)", "valid_to", formatRuleTime, { width: 140, empty: "Open" }),
        {
          title: "Re-rating",
          dataIndex: "rerating_job_uuid",
          key: "rerating",
          width: 90,
          // The job that re-rated the usage this price changed: its progress while it runs.
          render: (job: string | null | undefined, rule: PriceRule) =>
            job ? (
              <Link
                to={showUrl(operatorJobs.name, job)}
                aria-label={`Re-rating job of price rule ${rule.price_rule_uuid}`}
              >
                View job
              </Link>
            ) : null,
        },
        {
          title: "Status",
          dataIndex: "status",
          key: "status",
          width: 95,
          fixed: "right" as const,
          render: (status: PriceRuleStatus) => (
            <Tag color={PRICE_RULE_STATUS[status].color}>{PRICE_RULE_STATUS[status].label}</Tag>
          ),
        },
      ]}
    />
  );
}
