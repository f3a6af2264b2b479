// Sider content: the entries the user may open (grouped ones, like the operator area, under their
// group's title after the others), Logout with its confirmation, and the "Account Page" footer.
// Used inside the desktop sider (collapsible to icons) and the mobile drawer.
import { LogoutOutlined, UserOutlined } from "@ant-design/icons";
import { useLink } from "@refinedev/core";
import { Button, Flex, Menu, type MenuProps, theme } from "antd";
import { useState } from "react";
import { useServices } from "../../providers/services";
import type { ConsoleResourceMeta } from "../../resources/types";
import { LogoutDialog } from "./logout-dialog";
import { useSiderTooltips } from "./sider-tooltips";
import { type MenuEntry, useMenuEntries } from "./use-menu-entries";

type Props = {
  collapsed: boolean;
  /** Closes the mobile drawer once an entry is chosen. */
  closeDrawer?: () => void;
};

const groupOf = (entry: MenuEntry): ConsoleResourceMeta["siderGroup"] => entry.meta?.siderGroup;

export function SiderNav({ collapsed, closeDrawer }: Props) {
  const { authProvider, navigator } = useServices();
  const { entries = [], selectedKey } = useMenuEntries();
  const Link = useLink();
  const { token } = theme.useToken();
  const [logoutOpen, setLogoutOpen] = useState(false);
  const tips = useSiderTooltips(collapsed);

  const entry = (item: MenuEntry) => ({
    key: item.key,
    icon: item.icon,
    label: (
      <Link to={item.route} onClick={closeDrawer}>
        {item.label}
      </Link>
    ),
    ...tips.trigger(item.key, item.label ?? item.name),
  });
  const groups = [...new Set(entries.flatMap((e) => groupOf(e) ?? []))];

  const items: MenuProps["items"] = [
    ...entries.filter((e) => !groupOf(e)).map(entry),
    // A group (the operator area) comes after the main entries, under its title, set apart by a
    // line; only users who may open one of its entries see it.
    ...groups.flatMap((group) => [
      { type: "divider" as const, key: `divider-${group}` },
      {
        type: "group" as const,
        key: `group-${group}`,
        label: collapsed ? null : group,
        children: entries.filter((e) => groupOf(e) === group).map(entry),
      },
    ]),
    { type: "divider" as const },
    {
      key: "logout",
      icon: <LogoutOutlined />,
      label: "Logout",
      onClick: () => {
        closeDrawer?.();
        setLogoutOpen(true);
      },
      ...tips.trigger("logout", "Logout"),
    },
  ];

  return (
    <Flex vertical style={{ height: "100%" }}>
      <nav aria-label="Main" style={{ flex: 1, overflowY: "auto", overflowX: "hidden" }}>
        <Menu
          mode="inline"
          inlineCollapsed={collapsed}
          selectedKeys={[selectedKey]}
          items={items}
          style={{ borderInlineEnd: "none" }}
        />
      </nav>
      <div style={{ padding: collapsed ? 4 : 8, borderTop: `1px solid ${token.colorBorderSecondary}` }}>
        <Button
          block
          type="text"
          icon={<UserOutlined />}
          aria-label="Account Page"
          onClick={() => navigator.assign(authProvider.accountPageUrl())}
          style={{ justifyContent: collapsed ? "center" : "flex-start" }}
          {...tips.trigger("account", "Account Page")}
        >
          {collapsed ? null : "Account Page"}
        </Button>
      </div>
      {tips.tooltip}
      <LogoutDialog open={logoutOpen} onClose={() => setLogoutOpen(false)} />
    </Flex>
  );
}
