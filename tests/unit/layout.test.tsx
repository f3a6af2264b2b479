import { CanAccess } from "@refinedev/core";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { AuthGate } from "../../src/components/auth/auth-gate";
import { ResourceGuard } from "../../src/components/auth/resource-guard";
import { AppLayout } from "../../src/components/layout/app-layout";
import { NotFoundPage } from "../../src/components/not-found";
import { BILLING_CYCLES_PATH } from "../../src/lib/billing/cycles-path";
import { writeSidebarExpanded } from "../../src/lib/sidebar-cookie";
import { AccountSettingsPage } from "../../src/pages/account/account-settings-page";
import { accountSettings } from "../../src/resources/account-settings";
import { AUTH_URL, fakeAuthClient } from "./support/fakes";
import { api, renderPage } from "./support/render-page";

const sider = () => screen.getByTestId("app-sider");
const nav = () => within(screen.getByRole("navigation", { name: "Main" }));

/** The authenticated shell around a stand-in page, at `path`. */
const renderLayout = (options: Parameters<typeof renderPage>[1] = {}) =>
  renderPage(<AppLayout />, { route: "/account/settings", ...options, outlet: <p>The page</p> });

describe("console layout", () => {
  it("shows an administrator the organization, the billing entry and the resource entries", async () => {
    renderLayout({ me: { is_admin: true, email: "admin@acme.test" } });

    expect(await screen.findByText("The page")).toBeInTheDocument();
    await nav().findByText("Billing & Usage");
    expect(screen.getByTestId("header-organization")).toHaveTextContent("Acme AI");
    expect(screen.getByRole("link", { name: "Eval Console" })).toHaveAttribute("href", "/");
    for (const label of [
      "Billing & Usage",
      "Eval Runs",
      "Workspaces",
      "Users",
      "Personal API Keys",
      "Audit Log",
      "Account Settings",
    ]) {
      expect(nav().getByText(label)).toBeInTheDocument();
    }
    expect(nav().getByText("Logout")).toBeInTheDocument();
    expect(screen.queryByText("No workspace assigned")).not.toBeInTheDocument();
  });

  it("shows a member no billing entry, the workspaces as home and the no-workspace banner with the admins", async () => {
    renderLayout({ me: { is_admin: false, workspace: null, org_admin_emails: ["a@x", "b@y"] } });

    expect(await screen.findByText("The page")).toBeInTheDocument();
    // The entries appear as the provider answers; once Workspaces has, the refused ones stay away.
    expect(await nav().findByText("Workspaces")).toBeInTheDocument();
    expect(nav().queryByText("Billing & Usage")).not.toBeInTheDocument();
    expect(nav().queryByText("Audit Log")).not.toBeInTheDocument();
    expect(nav().queryByText("Eval Runs")).not.toBeInTheDocument();
    expect(nav().getByText("Workspaces")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Eval Console" })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
    const banner = screen.getByRole("alert");
    expect(banner).toHaveTextContent("No workspace assigned");
    expect(banner).toHaveTextContent("Please contact your administrator to add you to a workspace.");
    expect(banner).toHaveTextContent("Admins: a@x, b@y");
  });

  it("gives each page its own tab title and marks the entry owning the page as the current one", async () => {
    const settings = renderLayout();
    await screen.findByText("The page");
    expect(document.title).toBe("Account Settings · Eval Console");
    expect(await nav().findByRole("link", { name: "Account Settings" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    settings.unmount();

    renderLayout({ route: "/workspace/:id", path: "/workspace/ws-1" });
    await screen.findByText("The page");
    expect(document.title).toBe("Details · Workspaces · Eval Console");
    expect(await nav().findByRole("link", { name: "Workspaces" })).toHaveAttribute("aria-current", "page");
    expect(nav().getByRole("link", { name: "Account Settings" })).not.toHaveAttribute("aria-current");
  });

  it("makes each entry a link the keyboard reaches with Tab and opens with Enter", async () => {
    const view = renderLayout();
    await screen.findByText("The page");
    await nav().findByRole("link", { name: "Account Settings" });
    const links = nav().getAllByRole("link");
    // A member's entries, each named by its label alone (the icons are decoration).
    expect(links.map((link) => link.getAttribute("href"))).toEqual([
      "/organization/workspaces",
      "/users",
      "/account/api-keys",
      "/account/settings",
    ]);
    expect(nav().getByRole("link", { name: "Users" })).toBe(links[1]);
    links[0]?.focus();
    await userEvent.tab();
    expect(links[1]).toHaveFocus();
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(view.location()).toBe("/users"));
  });

  it("shows Loading... until the current user has loaded", async () => {
    let release: () => void = () => {};
    const pending = new Promise<void>((resolve) => {
      release = resolve;
    });
    renderLayout({
      handlers: [
        http.get(api("/v1/accounts/me"), async () => {
          await pending;
          return HttpResponse.json({ email: "m@x", is_admin: false, workspace: { workspace_uuid: "w" } });
        }),
      ],
    });

    expect(await screen.findByText("Loading...")).toBeInTheDocument();
    expect(screen.queryByText("The page")).not.toBeInTheDocument();
    await act(async () => release());
    expect(await screen.findByText("The page")).toBeInTheDocument();
  });

  it("toggles the sider with Ctrl+B and remembers the state in the sidebar_state cookie", async () => {
    renderLayout();
    await screen.findByText("The page");
    expect(sider()).toHaveStyle({ width: "16rem" });

    fireEvent.keyDown(window, { key: "b", ctrlKey: true });
    await waitFor(() => expect(sider()).toHaveStyle({ width: "3rem" }));
    expect(document.cookie).toContain("sidebar_state=false");

    fireEvent.keyDown(window, { key: "b", metaKey: true });
    await waitFor(() => expect(sider()).toHaveStyle({ width: "16rem" }));
    expect(document.cookie).toContain("sidebar_state=true");

    await userEvent.click(screen.getByRole("button", { name: "Toggle Sidebar" }));
    await waitFor(() => expect(sider()).toHaveStyle({ width: "3rem" }));
    expect(document.cookie).toContain("sidebar_state=false");
  });

  it("starts collapsed when the cookie says so", async () => {
    writeSidebarExpanded(false);
    renderLayout();
    await screen.findByText("The page");
    expect(sider()).toHaveStyle({ width: "3rem" });
  });

  it("confirms logout with the exact texts, and Logout ends the session through the client", async () => {
    const { client } = renderLayout();
    await screen.findByText("The page");

    await userEvent.click(nav().getByText("Logout"));
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByText("Confirm Logout")).toBeInTheDocument();
    expect(
      within(dialog).getByText(
        "Are you sure you want to logout? You will need to sign in again to access your account.",
      ),
    ).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(client.logout).not.toHaveBeenCalled();

    await userEvent.click(nav().getByText("Logout"));
    await userEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Logout" }));
    await waitFor(() => expect(client.logout).toHaveBeenCalledWith(true));
  });

  it("shows the red impersonation banner with the user's email", async () => {
    renderLayout({ client: fakeAuthClient({ impersonator: "staff-1" }) });
    expect(await screen.findByText("Impersonating member@acme.test")).toBeInTheDocument();
  });

  it("sends the Account Page button to the hosted account page", async () => {
    const { navigator } = renderLayout();
    await userEvent.click(await screen.findByRole("button", { name: "Account Page" }));
    const target = new URL(navigator.assign.mock.calls[0]?.[0] as string);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH_URL}/account`);
    expect(atob(target.searchParams.get("rt") ?? "")).toBe("http://console.test/account/settings");
  });
});

describe("guards", () => {
  it("sends a member away from an administrators' page to the workspace list", async () => {
    const view = renderPage(
      <ResourceGuard resource="billing" action="list">
        <p>Billing</p>
      </ResourceGuard>,
      { route: "/", me: { is_admin: false } },
    );
    expect(await screen.findByTestId("elsewhere")).toHaveTextContent("/organization/workspaces");
    expect(view.location()).toBe("/organization/workspaces");
    expect(screen.queryByText("Billing")).not.toBeInTheDocument();
  });

  it("lets an administrator open it", async () => {
    renderPage(
      <ResourceGuard resource="billing" action="list">
        <p>Billing</p>
      </ResourceGuard>,
      { route: "/", me: { is_admin: true } },
    );
    expect(await screen.findByText("Billing")).toBeInTheDocument();
  });

  it("starts the landing page's first reads for a user the provider lets see it, and only for them", async () => {
    for (const [is_admin, answer, expected] of [
      [true, "Allowed", 1],
      [false, "Refused", 0],
    ] as const) {
      let reads = 0;
      const view = renderPage(
        <AuthGate>
          {/* The provider's answer for the page, as the route guard gets it. */}
          <CanAccess resource="billing" action="list" fallback={<p>Refused</p>}>
            <p>Allowed</p>
          </CanAccess>
        </AuthGate>,
        {
          route: "/",
          me: { is_admin },
          handlers: [
            http.get(api(BILLING_CYCLES_PATH), () => {
              reads += 1;
              return HttpResponse.json([]);
            }),
          ],
        },
      );
      // The first reads asked the same provider before the page did.
      await screen.findByText(answer);
      await waitFor(() => expect(reads).toBe(expected));
      view.unmount();
    }
  });

  it("starts the landing list page's first table page before the page itself renders", async () => {
    const reads: string[] = [];
    renderPage(
      <AuthGate>
        <p>Shell</p>
      </AuthGate>,
      {
        route: "/eval-runs",
        me: { is_admin: true },
        handlers: [
          http.get(api("/v1/eval-runs"), ({ request }) => {
            reads.push(new URL(request.url).search);
            return HttpResponse.json({ data: [], total: 0 });
          }),
        ],
      },
    );
    await screen.findByText("Shell");
    // The page's table asks for the same first page, newest first (its resource's firstList).
    await waitFor(() => expect(reads).toEqual(["?page=1&page_size=10&sort=-started_at"]));
  });

  it("redirects a signed-out visitor to the hosted login page and renders nothing protected", async () => {
    const { navigator } = renderPage(
      <AuthGate>
        <AccountSettingsPage />
      </AuthGate>,
      { route: accountSettings.list as string, client: fakeAuthClient({ loggedIn: false }) },
    );
    await waitFor(() => expect(navigator.assign).toHaveBeenCalledTimes(1));
    const target = new URL(navigator.assign.mock.calls[0]?.[0] as string);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH_URL}/login`);
    expect(atob(target.searchParams.get("rt") ?? "")).toBe("http://console.test/account/settings");
    expect(screen.queryByLabelText("Email")).not.toBeInTheDocument();
  });
});

describe("account settings", () => {
  it("shows the account read-only, with Not assigned when there is no organization", async () => {
    renderPage(<AccountSettingsPage />, {
      route: accountSettings.list as string,
      me: { email: "solo@x.test", organization: null, is_admin: false },
    });

    expect(await screen.findByLabelText("Email")).toHaveValue("solo@x.test");
    expect(screen.getByLabelText("Organization")).toHaveValue("Not assigned");
    expect(screen.getByLabelText("Role")).toHaveValue("User");
    expect(screen.getByLabelText("Email")).toHaveAttribute("readonly");
  });

  it("shows an administrator's organization and role", async () => {
    renderPage(<AccountSettingsPage />, { route: accountSettings.list as string, me: { is_admin: true } });
    expect(await screen.findByLabelText("Organization")).toHaveValue("Acme AI");
    expect(screen.getByLabelText("Role")).toHaveValue("Admin");
  });

  it("shows the 404 page for unknown routes, inside the shell, and the tab says so", async () => {
    const view = renderPage(<AppLayout />, { route: "/no/such/page", outlet: <NotFoundPage /> });
    expect(await screen.findByText("Sorry, the page you visited does not exist.")).toBeInTheDocument();
    expect(await nav().findByText("Workspaces")).toBeInTheDocument();
    expect(document.title).toBe("Page not found · Eval Console");
    await userEvent.click(screen.getByRole("button", { name: "Back Home" }));
    await waitFor(() => expect(view.location()).toBe("/"));
  });
});
