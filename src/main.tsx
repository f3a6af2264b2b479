// Must come first: makes antd 5 render correctly under React 19.
import "@ant-design/v5-patch-for-react-19";
import { createClient } from "@propelauth/javascript";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter } from "react-router";
import { App } from "./App";
import { FullScreenError } from "./components/feedback/full-screen-error";
import { LoadingScreen } from "./components/feedback/loading-screen";
import { ThemeShell } from "./components/theme-shell";
import { loadConsoleConfig } from "./providers/config-loader";
import { createServices } from "./providers/create-services";
import { preloadPage, routes } from "./routes";

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");
const root = createRoot(container);

const show = (node: React.ReactNode) =>
  root.render(
    <StrictMode>
      <ThemeShell>{node}</ThemeShell>
    </StrictMode>,
  );

async function start() {
  show(<LoadingScreen />);
  // The page's chunk downloads while the config, the session and the current user load.
  preloadPage(window.location.pathname);
  try {
    // The addresses of the API and identity service are only known at run time.
    const config = await loadConsoleConfig();
    const client = createClient({ authUrl: config.authUrl, enableBackgroundTokenRefresh: true });
    const services = createServices({ config, client });
    show(<App services={services} router={createBrowserRouter(routes)} />);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    show(
      <FullScreenError
        title="The console could not start"
        message={message}
        onRetry={() => window.location.reload()}
        retryLabel="Reload"
      />,
    );
  }
}

void start();
