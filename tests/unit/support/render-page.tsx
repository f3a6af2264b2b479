// Renders ONE console page inside the real Refine set-up (data providers, access control,
// resources, notifications) without the rest of the console. The network is mocked at the fetch
// level with msw (support/network.ts): the product API at API_URL and the identity service at
// AUTH_URL answer with the handlers a test gives (`server.use(...)` or `handlers`); GET
// /v1/accounts/me answers with the given user, and the budget calls every administrator's page
// makes (the alert banner, the budget sections) answer "none" unless a test says otherwise. An
// unhandled request fails the test.
//
//   const view = renderPage(<WorkspaceShowPage />, {
//     route: "/workspace/:id", path: "/workspace/ws-1", me: { is_admin: true },
//     handlers: [http.get(api("/v1/workspaces/ws-1"), () => HttpResponse.json(workspace))],
//   });
//
// Navigation away from the page lands on a stub showing the new location (`view.location()`).
import { StyleProvider } from "@ant-design/cssinjs";
import { configure, render } from "@testing-library/react";
import { ConfigProvider } from "antd";
import { HttpResponse, http, type RequestHandler } from "msw";
import type { ReactNode } from "react";
import { createMemoryRouter, RouterProvider, useLocation } from "react-router";
import { RefineRoot } from "../../../src/App";
import { ThemeShell } from "../../../src/components/theme-shell";
import { createServices } from "../../../src/providers/create-services";
import type { CurrentUser } from "../../../src/providers/current-user-types";
import { IDENTITY_CLIENT_PATH } from "../../../src/providers/identity-fetch";
import { ServicesProvider } from "../../../src/providers/services";
import { API_URL, AUTH_URL, accountsMe, fakeAuthClient, fakeNavigator } from "./fakes";
import { server } from "./network";

export { server };

// One page renders in about a second; allow for a busy machine.
configure({ asyncUtilTimeout: 10_000 });

/** A product API URL for msw handlers: api("/v1/workspaces/"). */
export const api = (path: string) => `${API_URL}${path}`;
/** An identity client API URL for msw handlers: identity("/personal_api_keys"). */
export const identity = (path: string) => `${AUTH_URL}${IDENTITY_CLIENT_PATH}${path}`;

/** The product API's error shape. */
export const apiError = (status: number, code: string, message: string) =>
  HttpResponse.json({ error: { code, message } }, { status });

const styleSink = document.createElement("div");

function Elsewhere() {
  const { pathname, search } = useLocation();
  return <div data-testid="elsewhere">{`${pathname}${search}`}</div>;
}

type Options = {
  /** The route pattern the page is mounted at (its resource's route, e.g. "/workspace/:id"). */
  route?: string;
  /** The URL opened; defaults to the route. */
  path?: string;
  me?: Partial<CurrentUser>;
  /** Answers of the product API and identity service; they take precedence over GET /v1/accounts/me. */
  handlers?: RequestHandler[];
  /** The identity client (signed in by default). */
  client?: ReturnType<typeof fakeAuthClient>;
  /** What a layout under test shows in its outlet. */
  outlet?: ReactNode;
};

export function renderPage(
  page: ReactNode,
  { route = "/", path = route, me, handlers = [], client = fakeAuthClient(), outlet }: Options = {},
) {
  const user = accountsMe(me);
  server.use(
    ...handlers,
    http.get(api("/v1/accounts/me"), () => HttpResponse.json(user)),
    http.get(api("/v1/budgets/alerts"), () => HttpResponse.json({ alerts: [] })),
    http.get(api("/v1/budgets/reservations"), () =>
      HttpResponse.json({ reservations: [], total: 0, held: "0.00" }),
    ),
    http.get(api("/v1/budgets"), () => HttpResponse.json({ budgets: [] })),
  );
  const navigator = fakeNavigator(`http://console.test${path}`);
  const services = createServices({
    config: { apiUrl: API_URL, authUrl: AUTH_URL, productName: "Eval Console" },
    client,
    navigator,
  });
  const router = createMemoryRouter(
    [
      {
        element: <RefineRoot />,
        children: [
          { path: route, element: page, children: outlet ? [{ index: true, element: outlet }] : [] },
          { path: "*", element: <Elsewhere /> },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  const view = render(
    // antd's generated styles go to a node outside the document: jsdom then has no stylesheet to
    // evaluate on every getComputedStyle, which role queries call for each element (seconds per
    // query on an antd page). Inline styles, which the tests look at, are unaffected.
    <StyleProvider container={styleSink}>
      <ThemeShell>
        {/* jsdom fires no transition events; without motion, dialogs open and close at once. */}
        <ConfigProvider theme={{ token: { motion: false } }}>
          <ServicesProvider services={services}>
            <RouterProvider router={router} />
          </ServicesProvider>
        </ConfigProvider>
      </ThemeShell>
    </StyleProvider>,
  );
  const location = () => `${router.state.location.pathname}${router.state.location.search}`;
  return { ...view, router, services, navigator, client, location };
}
