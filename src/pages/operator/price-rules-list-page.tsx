// "/operator/price-rules": every price rule with its history (the global price list and each
// organization's own), narrowed to the global list or one organization, and "Set price". Provider
// operators only.
import { PlusOutlined } from "@ant-design/icons";
import { CreateButton, useModalForm, useTable } from "@refinedev/antd";
import { CanAccess, type CrudFilter, type HttpError } from "@refinedev/core";
import { Card, Flex, Typography } from "antd";
import { useState } from "react";
import { PageList } from "../../components/layout/page-list";
import { OrganizationSelect } from "../../components/operator/organization-select";
import { PriceRuleFormModal, type PriceRuleModal } from "../../components/operator/price-rule-form-modal";
import { PriceRulesTable } from "../../components/operator/price-rules-table";
import { RefetchButton } from "../../components/refetch-button";
import { GLOBAL_SCOPE, type PriceRule } from "../../lib/operator";
import { operatorPriceRules as resource } from "../../resources/operator-price-rules";

export const PRICE_RULES_PAGE_SIZE = 20;

const scopeFilter = (scope: string | undefined): CrudFilter[] => [
  { field: "organization_uuid", operator: "eq", value: scope },
];

export function OperatorPriceRulesListPage() {
  const [scope, setScope] = useState<string | undefined>(undefined);
  const { tableProps, tableQuery, setFilters, setCurrentPage } = useTable<PriceRule, HttpError>({
    resource: resource.name,
    syncWithLocation: false,
    // The API answers the whole history; the table pages it.
    pagination: { currentPage: 1, pageSize: PRICE_RULES_PAGE_SIZE, mode: "client" },
    sorters: { mode: "off" },
    filters: { mode: "server", initial: scopeFilter(undefined) },
    errorNotification: false,
  });
  const modal: PriceRuleModal = useModalForm({
    resource: resource.name,
    action: "create",
    redirect: false,
    errorNotification: false,
    successNotification: () => ({ type: "success", key: "price-rule-set", message: "Price set" }),
  });

  const choose = (next: string | undefined) => {
    setScope(next);
    setFilters(scopeFilter(next), "replace");
    setCurrentPage(1);
  };

  return (
    <PageList
      resource={resource.name}
      title="Price Rules"
      headerButtons={
        <Flex gap={8} wrap>
          <RefetchButton query={tableQuery} />
          <CreateButton
            resource={resource.name}
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => modal.show()}
          >
            Set price
          </CreateButton>
        </Flex>
      }
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        <Flex vertical gap={16}>
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            Events are priced when they are ingested, by the most specific rule in force at their time: the
            organization's own rules first, then the global ones. A new price is a new rule; earlier ones stay
            here as history.
          </Typography.Paragraph>
          <OrganizationSelect
            aria-label="Price list"
            allowClear
            placeholder="All price lists"
            style={{ maxWidth: 360 }}
            value={scope}
            onChange={(value: string | undefined) => choose(value)}
            extra={[{ value: GLOBAL_SCOPE, label: "Global (every organization)" }]}
          />
          <PriceRulesTable
            tableProps={tableProps}
            query={tableQuery}
            showScope={scope === undefined}
            emptyText={
              scope === GLOBAL_SCOPE
                ? "No global price rules yet"
                : scope
                  ? "This organization has no price rules of its own"
                  : "No price rules yet"
            }
          />
        </Flex>
      </Card>
      <CanAccess resource={resource.name} action="create">
        <PriceRuleFormModal modal={modal} />
      </CanAccess>
    </PageList>
  );
}
