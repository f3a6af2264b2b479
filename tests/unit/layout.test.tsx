import { act, configure, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { writeSidebarExpanded } from "../../src/lib/sidebar-cookie";
import { AUTH_URL, fakeAuthClient } from "./support/fakes";
import { renderConsole } from "./support/render-console";

// The billing page at "/" renders a whole dashboard; on a busy machine its first paint can take
// longer than the default second.
configure({ asyncUtilTimeout: 10_000 });

const sider = () => screen.getByTestId("app-sider");
const nav = () => within(screen.getByRole("navigation", { name: "Main" }));

// Rendering the whole console in jsdom is slow on a cold start; allow for it.
describe("console layout", { timeout: 20_000 }, () => {
  it("shows an administrator the organization, the billing entry and the billing page", async () => {
    renderConsole({ path: "/", me: { is_admin: true, email: "admin@acme.test" } });

    expect(await screen.findByRole("heading", { name: "Billing & Usage" })).toBeInTheDocument();
    expect(screen.getByTestId("header-organization")).toHaveTextContent("Acme AI");
    expect(screen.getByRole("link", { name: "Eval Console" })).toHaveAttribute("href", "/");
    for (const label of ["Billing & Usage", "Workspaces", "Users", "Personal API Keys", "Account Settings"]) {
      expect(nav().getByText(label)).toBeInTheDocument();
    }
    expect(nav().getByText("Logout")).toBeInTheDocument();
    expect(screen.queryByText("No workspace assigned")).not.toBeInTheDocument();
  });

  it("redirects a member away from billing and shows the no-workspace banner with the admins", async () => {
    const { router } = renderConsole({
      path: "/",
      me: { is_admin: false, workspace: null, org_admin_emails: ["a@x", "b@y"] },
    });

    expect(await screen.findByRole("heading", { name: "Manage Workspaces" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/organization/workspaces");
    expect(nav().queryByText("Billing & Usage")).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Eval Console" })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );

    const banner = screen.getByRole("alert");
    expect(banner).toHaveTextContent("No workspace assigned");
    expect(banner).toHaveTextContent("Please contact your administrator to add you to a workspace.");
    expect(banner).toHaveTextContent("Admins: a@x, b@y");
  });

  it("shows Loading... until the current user has loaded", async () => {
    let release: (r: Response) => void = () => {};
    const pending = new Promise<Response>((resolve) => {
      release = resolve;
    });
    renderConsole({ path: "/users", meResponse: () => pending });

    expect(await screen.findByText("Loading...")).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Users" })).not.toBeInTheDocument();
    await act(async () => {
      release(
        new Response(JSON.stringify({ email: "m@x", is_admin: false, workspace: { workspace_uuid: "w" } })),
      );
    });
    expect(await screen.findByRole("heading", { name: "Users" })).toBeInTheDocument();
    expect(screen.getByText("Manage organization users and permissions")).toBeInTheDocument();
    expect(screen.getByText("Users management page - coming soon")).toBeInTheDocument();
  });

  it("toggles the sider with Ctrl+B and remembers the state in the sidebar_state cookie", async () => {
    renderConsole({ path: "/users" });
    await screen.findByRole("heading", { name: "Users" });
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
    renderConsole({ path: "/users" });
    await screen.findByRole("heading", { name: "Users" });
    expect(sider()).toHaveStyle({ width: "3rem" });
  });

  it("confirms logout with the exact texts, and Logout ends the session through the client", async () => {
    const client = fakeAuthClient();
    renderConsole({ path: "/users", client });
    await screen.findByRole("heading", { name: "Users" });

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

  it("shows Account Settings read-only, with Not assigned when there is no organization", async () => {
    renderConsole({
      path: "/account/settings",
      me: { email: "solo@x.test", organization: null, is_admin: false },
    });

    expect(await screen.findByLabelText("Email")).toHaveValue("solo@x.test");
    expect(screen.getByLabelText("Organization")).toHaveValue("Not assigned");
    expect(screen.getByLabelText("Role")).toHaveValue("User");
    expect(screen.getByLabelText("Email")).toHaveAttribute("readonly");
  });

  it("shows an administrator's organization and role on Account Settings", async () => {
    renderConsole({ path: "/account/settings", me: { is_admin: true } });
    expect(await screen.findByLabelText("Organization")).toHaveValue("Acme AI");
    expect(screen.getByLabelText("Role")).toHaveValue("Admin");
  });

  it("shows the red impersonation banner with the user's email", async () => {
    renderConsole({ path: "/users", client: fakeAuthClient({ impersonator: "staff-1" }) });
    expect(await screen.findByText("Impersonating member@acme.test")).toBeInTheDocument();
  });

  it("sends the Account Page button to the hosted account page", async () => {
    const { navigator } = renderConsole({ path: "/users" });
    await userEvent.click(await screen.findByRole("button", { name: "Account Page" }));
    const target = new URL(navigator.assign.mock.calls[0]?.[0] as string);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH_URL}/account`);
    expect(atob(target.searchParams.get("rt") ?? "")).toBe("http://console.test/users");
  });

  it("redirects a signed-out visitor to the hosted login page and renders nothing protected", async () => {
    const { navigator, fetchImpl } = renderConsole({
      path: "/account/settings",
      client: fakeAuthClient({ loggedIn: false }),
    });
    await waitFor(() => expect(navigator.assign).toHaveBeenCalledTimes(1));
    const target = new URL(navigator.assign.mock.calls[0]?.[0] as string);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH_URL}/login`);
    expect(atob(target.searchParams.get("rt") ?? "")).toBe("http://console.test/account/settings");
    expect(screen.queryByLabelText("Email")).not.toBeInTheDocument();
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it("shows Refine's 404 page for unknown routes", async () => {
    renderConsole({ path: "/no/such/page" });
    expect(await screen.findByText("Sorry, the page you visited does not exist.")).toBeInTheDocument();
  });
});
