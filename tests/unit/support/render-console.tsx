// Renders the real console (routes, Refine, providers) with only the identity client and the
// product API's network replaced.
import { render } from "@testing-library/react";
import { ConfigProvider } from "antd";
import { createMemoryRouter } from "react-router";
import { vi } from "vitest";
import { App } from "../../../src/App";
import { ThemeShell } from "../../../src/components/theme-shell";
import { createServices } from "../../../src/providers/create-services";
import type { CurrentUser } from "../../../src/providers/current-user-types";
import { routes } from "../../../src/routes";
import { API_URL, AUTH_URL, accountsMe, fakeAuthClient, fakeNavigator, jsonResponse } from "./fakes";

type Options = {
  path?: string;
  me?: Partial<CurrentUser>;
  meResponse?: () => Promise<Response>;
  client?: ReturnType<typeof fakeAuthClient>;
};

export function renderConsole({ path = "/", me, meResponse, client = fakeAuthClient() }: Options = {}) {
  const fetchImpl = vi.fn<typeof fetch>(async (input) => {
    if (String(input) === `${API_URL}/v1/accounts/me`) {
      return meResponse ? meResponse() : jsonResponse(200, accountsMe(me));
    }
    return jsonResponse(404, { error: { code: "not_found", message: "Not found" } });
  });
  const navigator = fakeNavigator(`http://console.test${path}`);
  const services = createServices({
    config: { apiUrl: API_URL, authUrl: AUTH_URL, productName: "Eval Console" },
    client,
    navigator,
    fetchImpl,
  });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <ThemeShell>
      {/* jsdom fires no transition events; without motion, dialogs open and close at once. */}
      <ConfigProvider theme={{ token: { motion: false } }}>
        <App services={services} router={router} />
      </ConfigProvider>
    </ThemeShell>,
  );
  return { ...view, router, client, navigator, fetchImpl };
}
