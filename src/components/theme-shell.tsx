// The dark theme is forced (spec §1). antd's <App> gives notifications/modals the theme through
// App.useApp(), which Refine's notification provider uses; maxCount 1 keeps one toast at a time.
// Toasts sit at the bottom right, away from the page title's primary buttons (top right).
import { App as AntdApp, ConfigProvider, theme } from "antd";
import type { ReactNode } from "react";

const consoleTheme = {
  algorithm: theme.darkAlgorithm,
  // No hash class on antd's selectors: the console has this one theme, so there is nothing to tell
  // apart, and the build's static stylesheet (scripts/extract-antd-styles.tsx) then matches the
  // class names of a development server as well as of the build. antd puts its hash in :where(),
  // so leaving it out changes no selector's specificity.
  hashed: false,
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
