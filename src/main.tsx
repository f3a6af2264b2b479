// Must come first: makes antd 5 render correctly under React 19.
import "@ant-design/v5-patch-for-react-19";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter } from "react-router";
import { App } from "./App";
import { LoadingScreen } from "./components/feedback/loading-screen";
import { StartupError } from "./components/feedback/startup-error";
import { ThemeShell } from "./components/theme-shell";
import { loadConsoleConfig } from "./providers/config-loader";
import { createServices } from "./providers/create-services";
import { createIdentityClient } from "./providers/identity-client";
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
    const client = createIdentityClient(config.authUrl);
    const services = createServices({ config, client });
    show(<App services={services} router={createBrowserRouter(routes)} />);
  } catch (error) {
    show(<StartupError error={error} onRetry={() => window.location.reload()} />);
  }
}

void start();
