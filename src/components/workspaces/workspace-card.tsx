// One workspace in the grid: name, organization, member count, status, the "Current" badge and,
// for administrators, the details link and edit/delete icons.
import { DeleteOutlined, EditOutlined, TeamOutlined } from "@ant-design/icons";
import { Button, Card, Divider, Flex, Tag, Tooltip, Typography } from "antd";
import { Link } from "react-router";
import { memberCountLabel, type WorkspaceRecord } from "../../lib/workspaces";

type Props = {
  workspace: WorkspaceRecord;
  isCurrent: boolean;
  isAdmin: boolean;
  onEdit: (workspace: WorkspaceRecord) => void;
  onDelete: (workspace: WorkspaceRecord) => void;
};

export function WorkspaceCard({ workspace, isCurrent, isAdmin, onEdit, onDelete }: Props) {
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
      {isAdmin ? (
        <>
          <Divider style={{ marginBlock: 16 }} />
          <Flex justify="space-between" align="center" gap={8}>
            <Link to={`/workspace/${encodeURIComponent(workspace.workspace_uuid)}`}>
              View Workspace Details
            </Link>
            <Flex gap={4}>
              <Tooltip title="Edit workspace">
                <Button
                  type="text"
                  icon={<EditOutlined />}
                  aria-label={`Edit workspace ${workspace.name}`}
                  onClick={() => onEdit(workspace)}
                />
              </Tooltip>
              <Tooltip title="Delete workspace">
                <Button
                  type="text"
                  danger
                  icon={<DeleteOutlined />}
                  aria-label={`Delete workspace ${workspace.name}`}
                  onClick={() => onDelete(workspace)}
                />
              </Tooltip>
            </Flex>
          </Flex>
        </>
      ) : null}
    </Card>
  );
}
