// The authenticated shell: preloads the current user, then renders sider (or mobile drawer),
// header, banners and the routed page.
import { useLogout } from "@refinedev/core";
import { Drawer, Layout, theme } from "antd";
import { useEffect, useState } from "react";
import { Outlet } from "react-router";
import { useCurrentUser } from "../../hooks/use-current-user";
import { useSiderState } from "../../hooks/use-sider-state";
import { useServices } from "../../providers/services";
import { BudgetAlertBanner } from "../budgets/budget-alert-banner";
import { FullScreenError } from "../feedback/full-screen-error";
import { LoadingScreen } from "../feedback/loading-screen";
import { AppHeader } from "./app-header";
import { ImpersonationBanner } from "./impersonation-banner";
import { LogoutDialog } from "./logout-dialog";
import { NoWorkspaceBanner } from "./no-workspace-banner";
import { SiderNav } from "./sider-nav";

export const SIDER_WIDTH = "16rem";
export const SIDER_COLLAPSED_WIDTH = "3rem";
export const MOBILE_SIDER_WIDTH = "18rem";

export function AppLayout() {
  const { config, authProvider, navigator } = useServices();
  const { data: user, isLoading, error, refetch } = useCurrentUser();
  const { mutate: logout } = useLogout();
  const sider = useSiderState();
  const [logoutOpen, setLogoutOpen] = useState(false);
  const { token } = theme.useToken();
  const unauthorized = error?.statusCode === 401;

  // The API refused the token: end the session (the identity service then shows its login page).
  useEffect(() => {
    if (unauthorized) logout();
  }, [unauthorized, logout]);

  if (isLoading) return <LoadingScreen />;
  if (!user) {
    if (unauthorized) return <LoadingScreen text="Signing out..." />;
    return (
      <FullScreenError
        title="Unable to load your account"
        message={error?.message ?? "Your account details could not be loaded."}
        onRetry={() => refetch()}
      />
    );
  }

  const openLogout = () => {
    sider.setMobileOpen(false);
    setLogoutOpen(true);
  };
  const openAccountPage = () => navigator.assign(authProvider.accountPageUrl());
  const nav = (collapsed: boolean, onNavigate?: () => void) => (
    <SiderNav
      user={user}
      collapsed={collapsed}
      onLogout={openLogout}
      onAccountPage={openAccountPage}
      onNavigate={onNavigate}
    />
  );

  return (
    <Layout style={{ minHeight: "100vh" }}>
      {sider.isMobile ? (
        <Drawer
          placement="left"
          width={MOBILE_SIDER_WIDTH}
          open={sider.mobileOpen}
          onClose={() => sider.setMobileOpen(false)}
          title={config.productName}
          styles={{ body: { padding: 0 } }}
        >
          {nav(false, () => sider.setMobileOpen(false))}
        </Drawer>
      ) : (
        <Layout.Sider
          collapsible
          collapsed={sider.collapsed}
          trigger={null}
          width={SIDER_WIDTH}
          collapsedWidth={SIDER_COLLAPSED_WIDTH}
          data-testid="app-sider"
          style={{
            position: "sticky",
            top: 0,
            height: "100vh",
            background: token.colorBgContainer,
            borderInlineEnd: `1px solid ${token.colorBorderSecondary}`,
          }}
        >
          {nav(sider.collapsed)}
        </Layout.Sider>
      )}
      <Layout style={{ minWidth: 0 }}>
        {user.is_impersonating ? <ImpersonationBanner email={user.email} /> : null}
        <AppHeader
          user={user}
          productName={config.productName}
          siderVisible={sider.isMobile ? sider.mobileOpen : !sider.collapsed}
          onToggleSider={sider.toggle}
        />
        <BudgetAlertBanner />
        <Layout.Content style={{ padding: 24 }}>
          <NoWorkspaceBanner user={user} />
          <Outlet />
        </Layout.Content>
      </Layout>
      <LogoutDialog open={logoutOpen} onClose={() => setLogoutOpen(false)} />
    </Layout>
  );
}
