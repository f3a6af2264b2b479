// The console's shell chunk: React, antd and the route tree, imported by the entry (main.tsx) while
// the config and the session load. It shows the loading screen, starts fetching the landing page's
// code, then renders the console once the services exist, or the startup error.
// Must come first: makes antd 5 render correctly under React 19.
import "@ant-design/v5-patch-for-react-19";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter } from "react-router";
import { App } from "./App";
import { LoadingScreen } from "./components/feedback/loading-screen";
import { StartupError } from "./components/feedback/startup-error";
import { ThemeShell } from "./components/theme-shell";
import type { ConsoleServices } from "./providers/services";
import { preloadPage, routes } from "./routes";

/** What the entry's start-up gave: the services, or why they could not be made. */
export type ConsoleStart = { services: ConsoleServices } | { error: unknown };

/** The longest the console waits for the landing page's code before it renders without it. */
const PAGE_WAIT_MS = 300;

export function renderConsole(container: HTMLElement, start: Promise<ConsoleStart>) {
  const root = createRoot(container);
  const show = (node: React.ReactNode) =>
    root.render(
      <StrictMode>
        <ThemeShell>{node}</ThemeShell>
      </StrictMode>,
    );

  show(<LoadingScreen />);
  // The page's chunk downloads while the session and the current user load. The console renders
  // once it is here (or after PAGE_WAIT_MS): the shell's queries start with their answers
  // (providers/known-answers), so the page would otherwise render before its code had arrived and
  // show its loading screen, which React keeps up for at least 300 ms.
  const page = preloadPage(window.location.pathname);
  const pageOrLater = Promise.race([page, new Promise((resolve) => setTimeout(resolve, PAGE_WAIT_MS))]);
  void Promise.all([start, pageOrLater]).then(([started]) => {
    if ("error" in started) {
      show(<StartupError error={started.error} onRetry={() => window.location.reload()} />);
      return;
    }
    show(<App services={started.services} router={createBrowserRouter(routes)} />);
  });
}
