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

/** The longest the console waits for the landing page's code before it renders without it. */
const PAGE_WAIT_MS = 300;

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
  // The landing page's code downloads meanwhile, beside the session check, and the console renders
  // once it is here (or after PAGE_WAIT_MS): a page rendered before its code would show its loading
  // screen, which React keeps up for at least 300 ms (lib/preloadable).
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
