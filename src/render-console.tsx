// The console's shell chunk: React, antd and the route tree, imported by the entry (main.tsx). It
// starts fetching the landing page's code, then renders the console once the services exist, or the
// startup error, in place of index.html's loading screen.
// Must come first: makes antd 5 render correctly under React 19.
import "@ant-design/v5-patch-for-react-19";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter } from "react-router";
import { App } from "./App";
import { StartupError } from "./components/feedback/startup-error";
import { ThemeShell } from "./components/theme-shell";
import type { ConsoleServices } from "./providers/services";
import { preloadPage, routes } from "./routes";

/** What the entry's start-up gave: the services, or why they could not be made. */
export type ConsoleStart = { services: ConsoleServices } | { error: unknown };

/** `start`: the services, or why they could not be made. */
export function renderConsole(container: HTMLElement, start: Promise<ConsoleStart>) {
  const root = createRoot(container);
  const show = (node: React.ReactNode) =>
    root.render(
      <StrictMode>
        <ThemeShell>{node}</ThemeShell>
      </StrictMode>,
    );

  // index.html's loading screen (the same markup as LoadingScreen) stays up until this first render.
  // The landing page's code downloads meanwhile, beside the session check, instead of once its
  // route renders.
  void preloadPage(window.location.pathname);
  void start.then((started) => {
    if ("error" in started) {
      show(<StartupError error={started.error} onRetry={() => window.location.reload()} />);
      return;
    }
    show(<App services={started.services} router={createBrowserRouter(routes)} />);
  });
}
