// Sider content: resource entries the user may open (grouped ones, like the operator area, under
// their group's title after the others), Logout, and the "Account Page" footer.
// Used inside the desktop Layout.Sider (collapsible to icons) and the mobile drawer.
import { LogoutOutlined, UserOutlined } from "@ant-design/icons";
import { Button, Flex, Menu, type MenuProps, Tooltip, theme } from "antd";
import { type CSSProperties, useEffect, useMemo, useState } from "react";
import { Link, useLocation } from "react-router";
import { selectedNavKey } from "../../lib/nav-selection";
import { menuResources, resourceRoutes } from "../../lib/resource-access";
import { createTooltipTiming } from "../../lib/tooltip-timing";
import type { CurrentUser } from "../../providers/current-user-types";
import { resources } from "../../resources";

type Props = {
  user: CurrentUser;
  collapsed: boolean;
  onLogout: () => void;
  onAccountPage: () => void;
  onNavigate?: () => void;
};

const LOGOUT_KEY = "logout";
const ACCOUNT_KEY = "account";

type Hovered = { key: string; title: string; rect: DOMRect };

/**
 * The collapsed sider's tooltips with the spec's timing (delay 700 ms, skip delay 300 ms; antd's
 * own menu tooltips open after 100 ms): one tooltip, placed beside the hovered entry.
 */
function useSiderTooltips(enabled: boolean) {
  const [hovered, setHovered] = useState<Hovered | null>(null);
  const [openKey, setOpenKey] = useState<string | null>(null);
  const timing = useMemo(() => createTooltipTiming<string>(setOpenKey), []);
  useEffect(() => {
    if (!enabled) {
      timing.reset();
      setHovered(null);
    }
    return () => timing.reset();
  }, [enabled, timing]);
  const enter = (key: string, title: string, target: Element) => {
    if (!enabled) return;
    setHovered({ key, title, rect: target.getBoundingClientRect() });
    timing.enter(key);
  };
  const leave = (key: string) => timing.leave(key);
  const open = enabled && hovered !== null && openKey === hovered.key;
  const anchorStyle: CSSProperties | undefined = hovered
    ? {
        position: "fixed",
        left: hovered.rect.left,
        top: hovered.rect.top,
        width: hovered.rect.width,
        height: hovered.rect.height,
        pointerEvents: "none",
      }
    : undefined;
  const tooltip = hovered ? (
    <Tooltip title={hovered.title} placement="right" open={open}>
      <span aria-hidden style={anchorStyle} />
    </Tooltip>
  ) : null;
  return { enter, leave, tooltip };
}

export function SiderNav({ user, collapsed, onLogout, onAccountPage, onNavigate }: Props) {
  const { pathname } = useLocation();
  const { token } = theme.useToken();
  const visible = useMemo(() => menuResources(resources, user), [user]);
  const selected = selectedNavKey(
    pathname,
    visible.map((r) => ({ key: r.name, routes: resourceRoutes(r) })),
  );

  const tips = useSiderTooltips(collapsed);
  const hover = (key: string, title: string) => ({
    onMouseEnter: ({ domEvent }: { domEvent: { currentTarget: Element } }) =>
      tips.enter(key, title, domEvent.currentTarget),
    onMouseLeave: () => tips.leave(key),
  });

  const entry = (r: (typeof visible)[number]) => ({
    key: r.name,
    ...hover(r.name, r.meta.label),
    icon: r.meta.icon,
    label: (
      <Link to={r.list} onClick={onNavigate}>
        {r.meta.label}
      </Link>
    ),
  });
  const groups = [...new Set(visible.flatMap((r) => (r.meta.siderGroup ? [r.meta.siderGroup] : [])))];

  const items: MenuProps["items"] = [
    ...visible.filter((r) => !r.meta.siderGroup).map(entry),
    // A group (the operator area) comes after the main entries, under its title, set apart by a
    // line; only users who may open one of its entries see it.
    ...groups.flatMap((group) => [
      { type: "divider" as const, key: `divider-${group}` },
      {
        type: "group" as const,
        key: `group-${group}`,
        label: collapsed ? null : group,
        children: visible.filter((r) => r.meta.siderGroup === group).map(entry),
      },
    ]),
    { type: "divider" as const },
    {
      key: LOGOUT_KEY,
      ...hover(LOGOUT_KEY, "Logout"),
      icon: <LogoutOutlined />,
      label: "Logout",
      onClick: onLogout,
    },
  ];

  const accountButton = (
    <Button
      block
      type="text"
      icon={<UserOutlined />}
      aria-label="Account Page"
      onClick={onAccountPage}
      onMouseEnter={(e) => tips.enter(ACCOUNT_KEY, "Account Page", e.currentTarget)}
      onMouseLeave={() => tips.leave(ACCOUNT_KEY)}
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
          _internalDisableMenuItemTitleTooltip
        />
      </nav>
      <div style={{ padding: collapsed ? 4 : 8, borderTop: `1px solid ${token.colorBorderSecondary}` }}>
        {accountButton}
      </div>
      {tips.tooltip}
    </Flex>
  );
}
