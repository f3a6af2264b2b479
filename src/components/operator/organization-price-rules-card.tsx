// An organization's own price rules on its operator page, with their history, and "Set price" for
// it. Where it has no rule of its own for an event, the global price list applies.
import { PlusOutlined } from "@ant-design/icons";
import { CreateButton, useTable } from "@refinedev/antd";
import { CanAccess, type HttpError, useLink, useNavigation } from "@refinedev/core";
import { Card, Flex, Typography } from "antd";
import type { PriceRule } from "../../lib/operator";
import { operatorPriceRules as resource } from "../../resources/operator-price-rules";
import { RefetchButton } from "../refetch-button";
import { PriceRuleFormModal, usePriceRuleModal } from "./price-rule-form-modal";
import { PriceRulesTable } from "./price-rules-table";

type Props = { organization: { organization_uuid: string; name: string } };

export function OrganizationPriceRulesCard({ organization }: Props) {
  const Link = useLink();
  const { listUrl } = useNavigation();
  const { tableProps, tableQuery } = useTable<PriceRule, HttpError>({
    resource: resource.name,
    // Three tables share the organization's page; on the URL they would fight over the same keys.
    syncWithLocation: false,
    pagination: { currentPage: 1, pageSize: 10, mode: "client" },
    sorters: { mode: "off" },
    filters: {
      mode: "server",
      permanent: [{ field: "organization_uuid", operator: "eq", value: organization.organization_uuid }],
    },
    errorNotification: false,
  });
  const modal = usePriceRuleModal();

  return (
    <Card
      title="Price rules"
      extra={
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
    >
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          This organization's own prices, every version. Where none applies to an event, the{" "}
          <Link to={listUrl(resource.name)}>global price list</Link> does.
        </Typography.Paragraph>
        <PriceRulesTable
          tableProps={tableProps}
          query={tableQuery}
          emptyText="No price rules of its own: the global price list applies"
        />
      </Flex>
      <CanAccess resource={resource.name} action="create">
        <PriceRuleFormModal modal={modal} fixedOrganization={organization} />
      </CanAccess>
    </Card>
  );
}
