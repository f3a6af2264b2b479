// "/users": registered so the route exists; the spec keeps the screen a placeholder.
import { Card, Typography } from "antd";
import { PageTitle } from "../../components/page-title";

export function UsersPage() {
  return (
    <>
      <PageTitle title="Users" subtitle="Manage organization users and permissions" />
      <Card>
        <Typography.Text type="secondary">Users management page - coming soon</Typography.Text>
      </Card>
    </>
  );
}
