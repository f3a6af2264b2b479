// The console's shell chunk: React, antd and the route tree, imported by the entry (main.tsx) while
// the landing page's first reads load. It starts fetching the landing page's code, then renders the
// console once the services exist and the landing page's first answers are in, or the startup
// error, in place of index.html's loading screen.
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

/** `start`: the services, once the landing page's first answers are in (or the entry stopped
 * waiting for them). */
export function renderConsole(container: HTMLElement, start: Promise<ConsoleStart>) {
  const root = createRoot(container);
  const show = (node: React.ReactNode) =>
    root.render(
      <StrictMode>
        <ThemeShell>{node}</ThemeShell>
      </StrictMode>,
    );

  // index.html's loading screen (the same markup as LoadingScreen) stays up until this first render.
  // The shell renders nothing before it: a loading screen rendered here, to do the theme's first pass
  // while the answers were on their way, rarely had that time. On a warm visit they are mostly in by
  // the time the shell has been evaluated, and that render (one uninterruptible block, 15-25 ms) then
  // held up both the answers' handling and the page's own render, on a machine whose other core
  // serves them. Without it, the list pages' warm rows came 6-21 ms earlier, Eval Runs' and Billing &
  // Usage's about the same (bench/README.md, "Change: no loading screen rendered by the shell").
  // The page's chunk downloads while the landing page's reads load. The console renders
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
