// The dark theme is forced (spec §1). antd's <App> gives notifications/modals the theme through
// App.useApp(), which Refine's notification provider uses; maxCount 1 keeps one toast at a time.
// Toasts sit at the bottom right, away from the page title's primary buttons (top right).
import { App as AntdApp, ConfigProvider, theme } from "antd";
import type { ReactNode } from "react";

const consoleTheme = {
  algorithm: theme.darkAlgorithm,
  components: {
    // Collapsed sider is 3rem wide; antd's default collapsed menu is 80 px.
    Menu: { collapsedWidth: "3rem" },
  },
};

export function ThemeShell({ children }: { children: ReactNode }) {
  return (
    <ConfigProvider theme={consoleTheme}>
      <AntdApp notification={{ maxCount: 1, placement: "bottomRight" }} message={{ maxCount: 1 }}>
        {children}
      </AntdApp>
    </ConfigProvider>
  );
}
