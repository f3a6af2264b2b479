// "/workspace/:id": one workspace (name, organization, id) and its members.
import { ArrowLeftOutlined, DashboardOutlined } from "@ant-design/icons";
import { type HttpError, useShow } from "@refinedev/core";
import { Alert, Card, Descriptions, Flex, Result, Spin, Typography } from "antd";
import { Link, useParams } from "react-router";
import { WorkspaceMembersPanel } from "../../components/workspaces/workspace-members-panel";
import { useCurrentUser } from "../../hooks/use-current-user";
import { WORKSPACE_STALE_MS, type WorkspaceRecord } from "../../lib/workspaces";

const LIST_PATH = "/organization/workspaces";

export function WorkspaceShowPage() {
  const { id = "" } = useParams();
  const { data: user } = useCurrentUser();
  const isAdmin = user?.is_admin === true;
  const { query, result: workspace } = useShow<WorkspaceRecord, HttpError>({
    resource: "workspaces",
    id,
    errorNotification: false,
    queryOptions: { staleTime: WORKSPACE_STALE_MS, enabled: id !== "" },
  });

  const backLink = (
    <Link to={LIST_PATH}>
      <ArrowLeftOutlined aria-hidden /> Back to Workspaces
    </Link>
  );

  if (query.isLoading) {
    return (
      <Spin tip="Loading...">
        <div style={{ minHeight: 160 }} />
      </Spin>
    );
  }
  // 404: no such live workspace (or, for a member, not one of theirs); 400: the id in the URL is
  // not a workspace id at all (the API refuses a malformed UUID). Either way there is no workspace.
  const status = query.error?.statusCode;
  if (status === 404 || status === 400 || (!query.isError && !workspace)) {
    return (
      <Result
        status="404"
        title="Workspace not found"
        extra={
          <Link to={LIST_PATH}>
            <ArrowLeftOutlined aria-hidden /> Back to Workspaces
          </Link>
        }
      />
    );
  }
  if (query.isError || !workspace) {
    return (
      <Flex vertical gap={16}>
        {backLink}
        <Alert
          type="error"
          showIcon
          message="The workspace could not be loaded."
          description={query.error?.message}
        />
      </Flex>
    );
  }

  return (
    <Flex vertical gap={16}>
      <Flex justify="space-between" align="center" wrap gap={8}>
        {backLink}
        {isAdmin ? (
          <Link to="/">
            <DashboardOutlined aria-hidden /> View Dashboard
          </Link>
        ) : null}
      </Flex>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {workspace.name}
      </Typography.Title>
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
      <WorkspaceMembersPanel workspaceId={workspace.workspace_uuid} isAdmin={isAdmin} />
    </Flex>
  );
}
