// Sider content: resource entries the user may open, Logout, and the "Account Page" footer.
// Used inside the desktop Layout.Sider (collapsible to icons) and the mobile drawer.
import { LogoutOutlined, UserOutlined } from "@ant-design/icons";
import { Button, Flex, Menu, type MenuProps, Tooltip, theme } from "antd";
import { useMemo } from "react";
import { Link, useLocation } from "react-router";
import { selectedNavKey } from "../../lib/nav-selection";
import { canAccessResource } from "../../lib/resource-access";
import type { CurrentUser } from "../../providers/current-user-types";
import { resourceRoutes, resources } from "../../resources";

type Props = {
  user: CurrentUser;
  collapsed: boolean;
  onLogout: () => void;
  onAccountPage: () => void;
  onNavigate?: () => void;
};

const LOGOUT_KEY = "logout";

export function SiderNav({ user, collapsed, onLogout, onAccountPage, onNavigate }: Props) {
  const { pathname } = useLocation();
  const { token } = theme.useToken();
  const visible = useMemo(() => resources.filter((r) => canAccessResource(r.meta, user)), [user]);
  const selected = selectedNavKey(
    pathname,
    visible.map((r) => ({ key: r.name, routes: resourceRoutes(r) })),
  );

  const items: MenuProps["items"] = [
    ...visible.map((r) => ({
      key: r.name,
      icon: r.meta.icon,
      label: (
        <Link to={r.list} onClick={onNavigate}>
          {r.meta.label}
        </Link>
      ),
    })),
    { type: "divider" as const },
    { key: LOGOUT_KEY, icon: <LogoutOutlined />, label: "Logout", onClick: onLogout },
  ];

  const accountButton = (
    <Button
      block
      type="text"
      icon={<UserOutlined />}
      aria-label="Account Page"
      onClick={onAccountPage}
      style={{ justifyContent: collapsed ? "center" : "flex-start" }}
    >
      {collapsed ? null : "Account Page"}
    </Button>
  );

  return (
    <Flex vertical style={{ height: "100%" }}>
      <nav aria-label="Main" style={{ flex: 1, overflowY: "auto", overflowX: "hidden" }}>
        <Menu
          mode="inline"
          inlineCollapsed={collapsed}
          selectedKeys={selected ? [selected] : []}
          items={items}
          style={{ borderInlineEnd: "none" }}
        />
      </nav>
      <div style={{ padding: collapsed ? 4 : 8, borderTop: `1px solid ${token.colorBorderSecondary}` }}>
        {collapsed ? (
          <Tooltip title="Account Page" placement="right" mouseEnterDelay={0.7}>
            {accountButton}
          </Tooltip>
        ) : (
          accountButton
        )}
      </div>
    </Flex>
  );
}
