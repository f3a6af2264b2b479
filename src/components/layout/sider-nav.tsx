// Sider content: antd's inline Menu of the declared resources (useMenu, declaration order), each
// entry behind Refine's <CanAccess> ("may list?") as Refine's ThemedSider does it; grouped ones
// (the operator area) under their group's title after the others; a footer with Logout (and its
// confirmation) and "Account Page". Used inside the desktop sider (collapsible to icons) and the mobile
// drawer. Entries only ever appear: CanAccess shows nothing until its answer is in.
import { LogoutOutlined, UserOutlined } from "@ant-design/icons";
import { CanAccess, type TreeMenuItem, useLink, useMenu } from "@refinedev/core";
import { Button, Flex, Menu, theme } from "antd";
import { useState } from "react";
import { useServices } from "../../providers/services";
import type { ConsoleResourceMeta } from "../../resources/types";
import { LogoutDialog } from "./logout-dialog";
import { useSiderTooltips } from "./sider-tooltips";

type Props = {
  collapsed: boolean;
  /** Closes the mobile drawer once an entry is chosen. */
  closeDrawer?: () => void;
};

type Entry = TreeMenuItem & { route: string };

const groupOf = (entry: Entry): ConsoleResourceMeta["siderGroup"] => entry.meta?.siderGroup;

export function SiderNav({ collapsed, closeDrawer }: Props) {
  const { authProvider, navigator } = useServices();
  const { menuItems, selectedKey } = useMenu();
  const Link = useLink();
  const { token } = theme.useToken();
  const [logoutOpen, setLogoutOpen] = useState(false);
  // The spec's tooltip timing (700 ms, skip 300 ms) instead of the Menu's own 100 ms tooltips.
  const tips = useSiderTooltips(collapsed);

  const entries = menuItems.filter((item): item is Entry => typeof item.route === "string");
  const entry = (item: Entry) => {
    const label = item.label ?? item.name;
    return (
      <CanAccess key={item.key} resource={item.name} action="list" params={{ resource: item }}>
        <Menu.Item key={item.key} icon={item.icon} title="" {...tips.menuTrigger(item.key, label)}>
          <Link
            to={item.route}
            aria-current={item.key === selectedKey ? "page" : undefined}
            onClick={closeDrawer}
          >
            {label}
          </Link>
        </Menu.Item>
      </CanAccess>
    );
  };
  const groups = [...new Set(entries.flatMap((e) => groupOf(e) ?? []))];

  return (
    <>
      <nav aria-label="Main" style={{ display: "flex", flexDirection: "column", height: "100%" }}>
        <Menu
          mode="inline"
          inlineCollapsed={collapsed}
          selectedKeys={selectedKey ? [selectedKey] : []}
          style={{
            flex: 1,
            overflowY: "auto",
            overflowX: "hidden",
            borderInlineEnd: 0,
            background: "transparent",
          }}
        >
          {entries.filter((e) => !groupOf(e)).map(entry)}
          {/* A group (the operator area) comes after the main entries, under its title, set apart by
              a line; only users who may open its first entry see it. */}
          {groups.map((group) => {
            const members = entries.filter((e) => groupOf(e) === group);
            const first = members[0] as Entry;
            return (
              <CanAccess key={group} resource={first.name} action="list" params={{ resource: first }}>
                <Menu.ItemGroup key={group} title={group}>
                  {members.map(entry)}
                </Menu.ItemGroup>
              </CanAccess>
            );
          })}
        </Menu>
        {/* Logout and Account Page sit at the foot, below the entries: an entry appears once its
            access answer is in, and nothing below it moves when it does. */}
        <Flex
          vertical
          style={{ padding: collapsed ? 4 : 8, borderTop: `1px solid ${token.colorBorderSecondary}` }}
        >
          <Button
            block
            type="text"
            icon={<LogoutOutlined />}
            aria-label="Logout"
            onClick={() => {
              closeDrawer?.();
              setLogoutOpen(true);
            }}
            style={{ justifyContent: collapsed ? "center" : "flex-start" }}
            {...tips.trigger("logout", "Logout")}
          >
            {collapsed ? null : "Logout"}
          </Button>
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
        </Flex>
      </nav>
      {tips.tooltip}
      <LogoutDialog open={logoutOpen} onClose={() => setLogoutOpen(false)} />
    </>
  );
}
