// "/workspace/:id": one workspace (name, organization, id) and its members. Refine takes the
// resource and the id from the route (the workspaces resource's show route).
import { DashboardOutlined } from "@ant-design/icons";
import { CanAccess, useLink, useNavigation } from "@refinedev/core";
import { Card, Descriptions, Flex, Typography } from "antd";
import { WorkspaceBudgetCard } from "../../components/budgets/workspace-budget-card";
import { PageShow } from "../../components/layout/page-show";
import { useRecordPage } from "../../components/layout/use-record-page";
import { WorkspaceMembersPanel } from "../../components/workspaces/workspace-members-panel";
import { WORKSPACE_STALE_MS, type WorkspaceRecord } from "../../lib/workspaces";
import { billing } from "../../resources/billing";
import { workspaces as resource } from "../../resources/workspaces";

export function WorkspaceShowPage() {
  const Link = useLink();
  const { listUrl } = useNavigation();
  // 404: no such live workspace (or, for a member, not one of theirs); 400: the id in the URL is
  // not a workspace id at all (the API refuses a malformed UUID). Either way there is no workspace.
  const {
    record: workspace,
    backLink,
    fallback,
  } = useRecordPage<WorkspaceRecord>({
    resource: resource.name,
    listLabel: "Workspaces",
    notFound: "Workspace not found",
    failed: "The workspace could not be loaded.",
    staleTime: WORKSPACE_STALE_MS,
  });
  if (fallback !== null || !workspace) return fallback;

  return (
    <Flex vertical gap={16}>
      <Flex justify="space-between" align="center" wrap gap={8}>
        {backLink}
        <CanAccess resource={billing.name} action="list">
          <Link to={listUrl(billing.name)}>
            <DashboardOutlined aria-hidden /> View Dashboard
          </Link>
        </CanAccess>
      </Flex>
      <PageShow resource={resource.name} recordItemId={workspace.workspace_uuid} title={workspace.name}>
        <Card>
          <Descriptions column={1} bordered size="middle">
            <Descriptions.Item label="Workspace Name">{workspace.name}</Descriptions.Item>
            <Descriptions.Item label="Organization">{workspace.organization_name}</Descriptions.Item>
            <Descriptions.Item label="Workspace ID">
              <Typography.Text code copyable={{ text: workspace.workspace_uuid }}>
                {workspace.workspace_uuid}
              </Typography.Text>
            </Descriptions.Item>
          </Descriptions>
        </Card>
        <WorkspaceBudgetCard workspace={workspace} />
        <WorkspaceMembersPanel workspaceId={workspace.workspace_uuid} />
      </PageShow>
    </Flex>
  );
}
