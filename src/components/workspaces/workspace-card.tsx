// One workspace in the grid: name, organization, member count, status, the "Current" badge and the
// management controls — the details link and edit/delete icons — for those who may edit and
// delete workspaces (administrators; members open their own workspace's details by its address).
import { DeleteOutlined, EditOutlined, TeamOutlined } from "@ant-design/icons";
import { EditButton } from "@refinedev/antd";
import { CanAccess, useLink, useNavigation } from "@refinedev/core";
import { Button, Card, Divider, Flex, Tag, Tooltip, Typography } from "antd";
import { memberCountLabel, type WorkspaceRecord } from "../../lib/workspaces";
import { workspaces as resource } from "../../resources/workspaces";

type Props = {
  workspace: WorkspaceRecord;
  isCurrent: boolean;
  onEdit: (workspace: WorkspaceRecord) => void;
  onDelete: (workspace: WorkspaceRecord) => void;
};

export function WorkspaceCard({ workspace, isCurrent, onEdit, onDelete }: Props) {
  const Link = useLink();
  const { showUrl } = useNavigation();
  return (
    <Card
      role="article"
      aria-label={workspace.name}
      title={
        <Typography.Text strong ellipsis={{ tooltip: workspace.name }}>
          {workspace.name}
        </Typography.Text>
      }
      extra={isCurrent ? <Tag color="blue">Current</Tag> : null}
      style={{ height: "100%" }}
    >
      <Flex vertical gap={8}>
        <Typography.Text type="secondary">{workspace.organization_name}</Typography.Text>
        <Flex justify="space-between" align="center">
          <Typography.Text>
            <TeamOutlined aria-hidden style={{ marginInlineEnd: 6 }} />
            {memberCountLabel(workspace.member_count)}
          </Typography.Text>
          <Tag color="green">Active</Tag>
        </Flex>
      </Flex>
      <CanAccess resource={resource.name} action="edit">
        <Divider style={{ marginBlock: 16 }} />
        <Flex justify="space-between" align="center" gap={8}>
          <Link to={showUrl(resource.name, workspace.workspace_uuid)}>View Workspace Details</Link>
          <Flex gap={4}>
            {/* The span carries the tooltip's hover events (the button is wrapped in a link). */}
            <Tooltip title="Edit workspace">
              <span>
                <EditButton
                  resource={resource.name}
                  recordItemId={workspace.workspace_uuid}
                  hideText
                  type="text"
                  icon={<EditOutlined />}
                  aria-label={`Edit workspace ${workspace.name}`}
                  onClick={() => onEdit(workspace)}
                />
              </span>
            </Tooltip>
            <CanAccess resource={resource.name} action="delete">
              <Tooltip title="Delete workspace">
                <Button
                  type="text"
                  danger
                  icon={<DeleteOutlined />}
                  aria-label={`Delete workspace ${workspace.name}`}
                  onClick={() => onDelete(workspace)}
                />
              </Tooltip>
            </CanAccess>
          </Flex>
        </Flex>
      </CanAccess>
    </Card>
  );
}
