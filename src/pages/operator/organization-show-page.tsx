import { Card, Descriptions, Flex, Typography } from "antd";
import { PageShow } from "../../components/layout/page-show";
import { useRecordPage } from "../../components/layout/use-record-page";
import { BillingCyclesCard } from "../../components/operator/billing-cycles-card";
import { OrganizationPriceRulesCard } from "../../components/operator/organization-price-rules-card";
import { PaymentsCard } from "../../components/operator/payments-card";
import { formatUtcDateTime } from "../../lib/billing/dates";
import type { OperatorOrganization } from "../../lib/operator";
import { operatorOrganizations as resource } from "../../resources/operator-organizations";

export function OperatorOrganizationShowPage() {
  const {
    record: organization,
    backLink,
    fallback,
  } = useRecordPage<OperatorOrganization>({
    resource: resource.name,
    listLabel: "Organizations",
    notFound: "Organization not found",
    failed: "The organization could not be loaded.",
  });
  if (fallback !== null || !organization) return fallback;
  const id = organization.organization_uuid;

  return (
    <Flex vertical gap={16}>
      <div>{backLink}</div>
      <PageShow resource={resource.name} recordItemId={id} title={organization.name}>
        <Card>
          <Descriptions column={{ xs: 1, md: 2 }} bordered size="middle">
            <Descriptions.Item label="Name">{organization.name}</Descriptions.Item>
            <Descriptions.Item label="Slug">
              <Typography.Text code>{organization.slug}</Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label="Organization ID">
              <Typography.Text code copyable={{ text: id }}>
                {id}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label="Members">
              {organization.member_count.toLocaleString("en-US")}
            </Descriptions.Item>
            <Descriptions.Item label="Created">
              {formatUtcDateTime(organization.created_at)}
            </Descriptions.Item>
          </Descriptions>
        </Card>
        <OrganizationPriceRulesCard organization={organization} />
        <BillingCyclesCard organizationId={id} />
        <PaymentsCard organizationId={id} />
      </PageShow>
    </Flex>
  );
}
