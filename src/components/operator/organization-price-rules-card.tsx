// An organization's own price rules on its operator page, with their history, and "Set price" for
// it. Where it has no rule of its own for an event, the global price list applies.
import { PlusOutlined } from "@ant-design/icons";
import { CanAccess, useLink, useNavigation } from "@refinedev/core";
import { Flex, Typography } from "antd";
import type { PriceRule } from "../../lib/operator";
import { operatorPriceRules as resource } from "../../resources/operator-price-rules";
import { ListCard, ResourceCreateButton } from "../table/list-actions";
import { PriceRuleFormModal, usePriceRuleModal } from "./price-rule-form-modal";
import { PriceRulesTable } from "./price-rules-table";
import { useOrganizationTable } from "./use-organization-table";

type Props = { organization: { organization_uuid: string; name: string } };

export function OrganizationPriceRulesCard({ organization }: Props) {
  const Link = useLink();
  const { listUrl } = useNavigation();
  const table = useOrganizationTable<PriceRule>({
    resource: resource.name,
    pageSize: 10,
    permanent: [{ field: "organization_uuid", operator: "eq", value: organization.organization_uuid }],
  });

  const modal = usePriceRuleModal();

  return (
    <ListCard
      title="Price rules"
      query={table.tableQuery}
      actions={
        <ResourceCreateButton
          resource={resource.name}
          icon={<PlusOutlined />}
          label="Set price"
          onCreate={() => modal.show()}
        />
      }
    >
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          This organization's own prices, every version. Where none applies to an event, the{" "}
          <Link to={listUrl(resource.name)}>global price list</Link> does.
        </Typography.Paragraph>
        <PriceRulesTable list={table} emptyText="No price rules of its own: the global price list applies" />
      </Flex>
      <CanAccess resource={resource.name} action="create">
        <PriceRuleFormModal modal={modal} fixedOrganization={organization} />
      </CanAccess>
    </ListCard>
  );
}
