// Top bar: sider trigger, product name (home link), organization name.
import { MenuFoldOutlined, MenuUnfoldOutlined } from "@ant-design/icons";
import { Button, Flex, Layout, Typography, theme } from "antd";
import { Link } from "react-router";
import { homeRoute } from "../../lib/resource-access";
import type { CurrentUser } from "../../providers/current-user-types";
import { resources } from "../../resources";

type Props = {
  user: CurrentUser;
  productName: string;
  siderVisible: boolean;
  onToggleSider: () => void;
};

export function AppHeader({ user, productName, siderVisible, onToggleSider }: Props) {
  const { token } = theme.useToken();
  return (
    <Layout.Header
      style={{
        display: "flex",
        alignItems: "center",
        gap: 12,
        height: 56,
        lineHeight: "56px",
        paddingInline: 12,
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
      }}
    >
      <Button
        type="text"
        aria-label="Toggle Sidebar"
        aria-expanded={siderVisible}
        title="Toggle Sidebar (Ctrl+B)"
        icon={siderVisible ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
        onClick={onToggleSider}
      />
      <Flex align="baseline" gap={12} style={{ minWidth: 0 }}>
        <Link
          to={homeRoute(resources, user)}
          style={{ color: token.colorText, fontWeight: 600, fontSize: 16 }}
        >
          {productName}
        </Link>
        {user.organization?.name ? (
          <Typography.Text type="secondary" ellipsis data-testid="header-organization">
            {user.organization.name}
          </Typography.Text>
        ) : null}
      </Flex>
    </Layout.Header>
  );
}
