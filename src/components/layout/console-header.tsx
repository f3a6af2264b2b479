// ThemedLayout's Header: the impersonation strip, then the top bar (sider trigger, product name
// linking home, organization name), then the budget alerts. Ctrl/Cmd+B toggles the sider like the
// trigger: collapsed or expanded on desktop (remembered in the sidebar_state cookie by the layout),
// the drawer open or closed on a phone.
import { MenuFoldOutlined, MenuUnfoldOutlined } from "@ant-design/icons";
import { useThemedLayoutContext } from "@refinedev/antd";
import { useLink } from "@refinedev/core";
import { Button, Flex, Layout, Typography, theme } from "antd";
import { useEffect } from "react";
import { useCurrentUser } from "../../hooks/use-current-user";
import { useIsMobile } from "../../hooks/use-is-mobile";
import { isToggleSidebarShortcut } from "../../lib/shortcuts";
import { useServices } from "../../providers/services";
import { BudgetAlertBanner } from "../budgets/budget-alert-banner";
import { ImpersonationBanner } from "./impersonation-banner";
import { useHome } from "./use-home";

export function ConsoleHeader() {
  const { config } = useServices();
  const { data: user } = useCurrentUser();
  const home = useHome();
  const Link = useLink();
  const { token } = theme.useToken();
  const { siderCollapsed, setSiderCollapsed, mobileSiderOpen, setMobileSiderOpen } = useThemedLayoutContext();
  const isMobile = useIsMobile();
  const siderVisible = isMobile ? mobileSiderOpen : !siderCollapsed;
  const toggle = () => (isMobile ? setMobileSiderOpen(!mobileSiderOpen) : setSiderCollapsed(!siderCollapsed));

  // Subscribed again after each render, so the shortcut toggles from the state on screen.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isToggleSidebarShortcut(event)) return;
      // Browsers bind Ctrl+B to bookmarks/bold; the console claims it like other admin UIs do.
      event.preventDefault();
      toggle();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  });

  // Leaving the phone layout must not leave an invisible drawer open.
  useEffect(() => {
    if (!isMobile) setMobileSiderOpen(false);
  }, [isMobile, setMobileSiderOpen]);

  return (
    <>
      {user?.is_impersonating ? <ImpersonationBanner email={user.email} /> : null}
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
          onClick={toggle}
        />
        <Flex align="baseline" gap={12} style={{ minWidth: 0 }}>
          <Link to={home ?? "/"} style={{ color: token.colorText, fontWeight: 600, fontSize: 16 }}>
            {config.productName}
          </Link>
          {user?.organization?.name ? (
            <Typography.Text ellipsis type="secondary" data-testid="header-organization">
              {user.organization.name}
            </Typography.Text>
          ) : null}
        </Flex>
      </Layout.Header>
      <BudgetAlertBanner />
    </>
  );
}
