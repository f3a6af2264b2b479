// Sider content: the entries the user may open (grouped ones, like the operator area, under their
// group's title after the others), Logout with its confirmation, and the "Account Page" footer.
// Used inside the desktop sider (collapsible to icons) and the mobile drawer.
//
// The entries are a list of links in a <nav>, the pattern for a site's navigation, drawn with the
// theme's menu colours (nav-styles.ts). antd's Menu was the most expensive part of every page's
// first render: it renders each entry twice (a hidden copy to register its path), wraps each in a
// tooltip, and renders itself again once the paths are registered, all before the page's first
// paint, and again whenever the page changes. Here the whole item is the link (antd's item linked
// only its label), Tab moves between entries, and the current page's entry has aria-current.
import { LogoutOutlined, UserOutlined } from "@ant-design/icons";
import { useLink } from "@refinedev/core";
import { Button, Flex, theme } from "antd";
import { useState } from "react";
import { useServices } from "../../providers/services";
import type { ConsoleResourceMeta } from "../../resources/types";
import { LogoutDialog } from "./logout-dialog";
import { NAV_CLASS, navStyles } from "./nav-styles";
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

  const entry = (item: MenuEntry) => {
    const label = item.label ?? item.name;
    return (
      <li key={item.key}>
        <Link
          to={item.route}
          className={`${NAV_CLASS}-item`}
          aria-current={item.key === selectedKey ? "page" : undefined}
          onClick={closeDrawer}
          {...tips.trigger(item.key, label)}
        >
          <span className={`${NAV_CLASS}-icon`} aria-hidden>
            {item.icon}
          </span>
          <span className={`${NAV_CLASS}-label`}>{label}</span>
        </Link>
      </li>
    );
  };
  const groups = [...new Set(entries.flatMap((e) => groupOf(e) ?? []))];

  return (
    <Flex vertical style={{ height: "100%" }}>
      <style href={NAV_CLASS} precedence="default">
        {navStyles(token)}
      </style>
      <nav
        aria-label="Main"
        className={collapsed ? `${NAV_CLASS} ${NAV_CLASS}-collapsed` : NAV_CLASS}
        style={{ flex: 1, overflowY: "auto", overflowX: "hidden" }}
      >
        <ul>
          {entries.filter((e) => !groupOf(e)).map(entry)}
          {/* A group (the operator area) comes after the main entries, under its title, set apart by
              a line; only users who may open one of its entries see it. */}
          {groups.map((group) => (
            <li key={group}>
              <hr className={`${NAV_CLASS}-divider`} />
              <div className={`${NAV_CLASS}-group`} id={`${NAV_CLASS}-group-${group}`}>
                {group}
              </div>
              <ul aria-labelledby={`${NAV_CLASS}-group-${group}`}>
                {entries.filter((e) => groupOf(e) === group).map(entry)}
              </ul>
            </li>
          ))}
          <li>
            <hr className={`${NAV_CLASS}-divider`} />
            <button
              type="button"
              className={`${NAV_CLASS}-item`}
              onClick={() => {
                closeDrawer?.();
                setLogoutOpen(true);
              }}
              {...tips.trigger("logout", "Logout")}
            >
              <span className={`${NAV_CLASS}-icon`} aria-hidden>
                <LogoutOutlined />
              </span>
              <span className={`${NAV_CLASS}-label`}>Logout</span>
            </button>
          </li>
        </ul>
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
