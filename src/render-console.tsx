// The console's shell chunk: React, antd and the route tree, imported by the entry (main.tsx) while
// the session loads. It starts fetching the landing page's code, then renders the console once the
// services exist and the landing page's first answers are in, or the startup error, in place of
// index.html's loading screen.
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

/** `start`: the services, once the landing page's first answers are in (or the entry stopped
 * waiting for them). `asked`: settles once the session has answered and the requests its answer
 * starts are on the wire. */
type Startup = { start: Promise<ConsoleStart>; asked: Promise<void> };

/** The longest the console waits for the landing page's code before it renders without it. */
const PAGE_WAIT_MS = 300;

export function renderConsole(container: HTMLElement, { start, asked }: Startup) {
  const root = createRoot(container);
  let rendered = false;
  const show = (node: React.ReactNode) =>
    root.render(
      <StrictMode>
        <ThemeShell>{node}</ThemeShell>
      </StrictMode>,
    );

  // index.html shows the loading screen until the first render. The same screen rendered once the
  // session's follow-up requests are out makes the theme's first render (a few tens of
  // milliseconds) while they are on the wire, instead of in the console's first render after
  // their answers: the shell above it stays mounted. Before that, its task could hold up the
  // session's answer and the requests it starts.
  void asked.then(() => {
    if (!rendered) show(<LoadingScreen />);
  });
  // The page's chunk downloads while the session and the current user load. The console renders
  // once it is here (or after PAGE_WAIT_MS): the shell's queries start with their answers
  // (providers/known-answers), so the page would otherwise render before its code had arrived and
  // show its loading screen, which React keeps up for at least 300 ms.
  const page = preloadPage(window.location.pathname);
  const pageOrLater = Promise.race([page, new Promise((resolve) => setTimeout(resolve, PAGE_WAIT_MS))]);
  void Promise.all([start, pageOrLater]).then(([started]) => {
    rendered = true;
    if ("error" in started) {
      show(<StartupError error={started.error} onRetry={() => window.location.reload()} />);
      return;
    }
    show(<App services={started.services} router={createBrowserRouter(routes)} />);
  });
}
