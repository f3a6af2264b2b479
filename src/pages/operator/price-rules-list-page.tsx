// "/operator/price-rules": every price rule with its history (the global price list and each
// organization's own), narrowed to the global list or one organization, and "Set price". Provider
// operators only.
import { PlusOutlined } from "@ant-design/icons";
import { CanAccess } from "@refinedev/core";
import { Form } from "antd";
import { ListPage } from "../../components/layout/list-page";
import { OrganizationSelect } from "../../components/operator/organization-select";
import { PriceRuleFormModal, usePriceRuleModal } from "../../components/operator/price-rule-form-modal";
import { PriceRulesTable } from "../../components/operator/price-rules-table";
import { FilterForm } from "../../components/table/filter-form";
import { useListTable } from "../../components/table/use-list-table";
import { GLOBAL_SCOPE, type PriceRule } from "../../lib/operator";
import { filterText, formFilter } from "../../lib/table-filters";
import { operatorPriceRules as resource } from "../../resources/operator-price-rules";

export const PRICE_RULES_PAGE_SIZE = 20;

type ScopeValues = { organization_uuid?: string };

export function OperatorPriceRulesListPage() {
  // Page and price list are Refine's, kept in the URL.
  const { tableProps, tableQuery, searchFormProps, filters } = useListTable<PriceRule, ScopeValues>({
    resource: resource.name,
    // The API answers the whole history; the table pages it.
    pageSize: PRICE_RULES_PAGE_SIZE,
    paging: "client",
    onSearch: (values) => [formFilter("organization_uuid", "eq", values.organization_uuid)],
  });
  const scope = filterText(filters, "organization_uuid", "eq") || undefined;
  const modal = usePriceRuleModal();

  return (
    <ListPage
      resource={resource.name}
      title="Price Rules"
      query={tableQuery}
      create={{ icon: <PlusOutlined />, label: "Set price", onCreate: () => modal.show() }}
      intro="Events are priced when they are ingested, by the most specific rule in force at their time: the organization's own rules first, then the global ones. A new price is a new rule; earlier ones stay here as history."
      modals={
        <CanAccess resource={resource.name} action="create">
          <PriceRuleFormModal modal={modal} />
        </CanAccess>
      }
    >
      <FilterForm<ScopeValues>
        searchFormProps={searchFormProps}
        initialValues={{ organization_uuid: scope }}
        label="Price list filter"
        delayMs={0}
      >
        <Form.Item name="organization_uuid" style={{ width: "100%", maxWidth: 360, marginInlineEnd: 0 }}>
          <OrganizationSelect
            aria-label="Price list"
            allowClear
            placeholder="All price lists"
            extra={[{ value: GLOBAL_SCOPE, label: "Global (every organization)" }]}
          />
        </Form.Item>
      </FilterForm>
      <PriceRulesTable
        list={{ tableProps, tableQuery }}
        showScope={scope === undefined}
        emptyText={
          scope === GLOBAL_SCOPE
            ? "No global price rules yet"
            : scope
              ? "This organization has no price rules of its own"
              : "No price rules yet"
        }
      />
    </ListPage>
  );
}
