// The dark theme is forced (spec §1). antd's <App> gives notifications/modals the theme through
// App.useApp(), which Refine's notification provider uses; maxCount 1 keeps one toast at a time.
// Toasts sit at the bottom right, away from the page title's primary buttons (top right).
// Someone who asked their system for reduced motion gets no zooming dialogs, sliding drawers or
// fading toasts: every antd component animates through rc-motion, whose provider turns them all
// off at once. (antd's own switch, the `motion` token, would change the theme's hash and miss the
// build's precomputed styles.)
import { App as AntdApp, ConfigProvider, type ThemeConfig, theme } from "antd";
import { Provider as MotionProvider } from "rc-motion";
import type { ReactNode } from "react";
import { useMediaQuery } from "../hooks/use-media-query";

const consoleTheme: ThemeConfig = {
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

const REDUCED_MOTION_QUERY = "(prefers-reduced-motion: reduce)";

export function ThemeShell({ children }: { children: ReactNode }) {
  const reducedMotion = useMediaQuery(REDUCED_MOTION_QUERY, false);
  return (
    <ConfigProvider theme={consoleTheme}>
      <MotionProvider motion={!reducedMotion}>
        <AntdApp notification={{ maxCount: 1, placement: "bottomRight" }} message={{ maxCount: 1 }}>
          {children}
        </AntdApp>
      </MotionProvider>
    </ConfigProvider>
  );
}
