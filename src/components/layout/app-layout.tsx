// The authenticated shell: Refine's ThemedLayout with the console's sider and header, shown once the
// current user and where they land are known (spec §2: the layout preloads the current user;
// "Loading..." meanwhile). The sider's collapsed state starts from, and is kept in, the
// sidebar_state cookie.
import { ThemedLayout } from "@refinedev/antd";
import { useLogout } from "@refinedev/core";
import { useEffect } from "react";
import { Outlet } from "react-router";
import { useCurrentUser } from "../../hooks/use-current-user";
import { readSidebarExpanded, writeSidebarExpanded } from "../../lib/sidebar-cookie";
import { FullScreenError } from "../feedback/full-screen-error";
import { LoadingScreen } from "../feedback/loading-screen";
import { ConsoleHeader } from "./console-header";
import { ConsoleSider } from "./console-sider";
import { NoWorkspaceBanner } from "./no-workspace-banner";
import { useHome } from "./use-home";

export function AppLayout() {
  const { data: user, isLoading, error, refetch } = useCurrentUser();
  // Where the user lands; its answer comes with the sider entries' (the same user, the same provider).
  const home = useHome();
  const { mutate: logout } = useLogout();
  const unauthorized = error?.statusCode === 401;

  // The API refused the token: end the session (the identity service then shows its login page).
  useEffect(() => {
    if (unauthorized) logout();
  }, [unauthorized, logout]);

  if (isLoading || (user && !home)) return <LoadingScreen />;
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

  return (
    <ThemedLayout
      Sider={ConsoleSider}
      Header={ConsoleHeader}
      initialSiderCollapsed={!readSidebarExpanded()}
      onSiderCollapsed={(collapsed) => writeSidebarExpanded(!collapsed)}
    >
      <NoWorkspaceBanner user={user} />
      <Outlet />
    </ThemedLayout>
  );
}
