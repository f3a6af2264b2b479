import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http, type RequestHandler } from "msw";
import { describe, expect, it } from "vitest";
import { WorkspaceListPage } from "../../src/pages/workspaces/workspace-list-page";
import { WorkspaceShowPage } from "../../src/pages/workspaces/workspace-show-page";
import type { CurrentUser } from "../../src/providers/current-user-types";
import { workspaces as workspacesResource } from "../../src/resources/workspaces";
import { findDialog } from "./support/dialogs";
import { api, apiError, renderPage, server } from "./support/render-page";

const workspaces = [
  {
    workspace_uuid: "ws-1",
    name: "Research",
    organization_uuid: "org-1",
    organization_name: "Acme AI",
    member_count: 2,
    created_at: "2026-01-01T00:00:00Z",
    deleted_at: null,
  },
  {
    workspace_uuid: "ws-2",
    name: "Red Team",
    organization_uuid: "org-1",
    organization_name: "Acme AI",
    member_count: 1,
    created_at: "2026-01-02T00:00:00Z",
    deleted_at: null,
  },
];

const admin = { is_admin: true, email: "admin@acme.test" };
const member = { is_admin: false, email: "member@acme.test" };

/** The requests the product API received, as "METHOD /path?query". */
function recordRequests() {
  const seen: { method: string; url: URL; body: string }[] = [];
  server.events.on("request:start", async ({ request }) => {
    seen.push({ method: request.method, url: new URL(request.url), body: await request.clone().text() });
  });
  return (method: string, pathname: string) =>
    seen.filter((r) => r.method === method && r.url.pathname === pathname);
}

const listWorkspaces = (rows = workspaces) => http.get(api("/v1/workspaces/"), () => HttpResponse.json(rows));

const renderList = (me: Partial<CurrentUser>, ...handlers: RequestHandler[]) =>
  renderPage(<WorkspaceListPage />, { route: workspacesResource.list as string, me, handlers });

describe("workspace list", () => {
  it("shows an administrator the cards with management controls and the Current badge", async () => {
    renderList(admin, listWorkspaces());
    const research = await screen.findByRole("article", { name: "Research" });
    expect(screen.getByRole("heading", { name: "Manage Workspaces" })).toBeInTheDocument();
    expect(within(research).getByText("Current")).toBeInTheDocument();
    expect(within(research).getByText("Acme AI")).toBeInTheDocument();
    expect(within(research).getByText("2 members")).toBeInTheDocument();
    expect(within(research).getByText("Active")).toBeInTheDocument();
    expect(await within(research).findByRole("link", { name: "View Workspace Details" })).toHaveAttribute(
      "href",
      "/workspace/ws-1",
    );
    const redTeam = screen.getByRole("article", { name: "Red Team" });
    expect(within(redTeam).queryByText("Current")).not.toBeInTheDocument();
    expect(within(redTeam).getByText("1 member")).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: /Create Workspace$/ })).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: "Edit workspace Red Team" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Delete workspace Red Team" })).toBeInTheDocument();
  });

  it("shows a member the workspaces without any management control", async () => {
    renderList(member, listWorkspaces());
    const research = await screen.findByRole("article", { name: "Research" });
    expect(within(research).getByText("Current")).toBeInTheDocument();
    // The access checks have answered once the current user is known; give them a moment anyway.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByRole("button", { name: /Create/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Edit workspace/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Delete workspace/ })).not.toBeInTheDocument();
    expect(screen.queryByText("View Workspace Details")).not.toBeInTheDocument();
  });

  it("shows the empty state, with Create Your First Workspace only for administrators", async () => {
    const first = renderList(admin, listWorkspaces([]));
    expect(await screen.findByText("No workspaces yet")).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: /Create Your First Workspace$/ })).toBeInTheDocument();
    first.unmount();

    renderList(member, listWorkspaces([]));
    expect(await screen.findByText("No workspaces yet")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByRole("button", { name: /Create Your First Workspace$/ })).not.toBeInTheDocument();
  });

  it("keeps Create disabled while the name is blank and sends the trimmed name", async () => {
    const user = userEvent.setup({ delay: null });
    const requests = recordRequests();
    renderList(
      admin,
      listWorkspaces(),
      http.post(api("/v1/workspaces/"), async ({ request }) => {
        const body = (await request.json()) as { name: string };
        return HttpResponse.json(
          { ...workspaces[1], workspace_uuid: "ws-3", name: body.name, member_count: 0 },
          { status: 201 },
        );
      }),
    );
    await user.click(await screen.findByRole("button", { name: /Create Workspace$/ }));
    const dialog = await findDialog("Create Workspace");
    const create = within(dialog).getByRole("button", { name: /^Create$/ });
    expect(create).toBeDisabled();
    const input = within(dialog).getByLabelText("Workspace Name");
    fireEvent.change(input, { target: { value: "   " } });
    await waitFor(() => expect(create).toBeDisabled());
    fireEvent.change(input, { target: { value: " Blue Team " } });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);

    await waitFor(() => expect(requests("POST", "/v1/workspaces/")).toHaveLength(1));
    expect(JSON.parse(requests("POST", "/v1/workspaces/")[0]?.body ?? "")).toEqual({
      name: "Blue Team",
      organization_uuid: "org-1",
    });
  });

  it("shows the create failure toast with the server's message", async () => {
    const user = userEvent.setup({ delay: null });
    renderList(
      admin,
      listWorkspaces(),
      http.post(api("/v1/workspaces/"), () =>
        apiError(409, "conflict", "A workspace named Research already exists."),
      ),
    );
    await user.click(await screen.findByRole("button", { name: /Create Workspace$/ }));
    const dialog = await findDialog("Create Workspace");
    fireEvent.change(within(dialog).getByLabelText("Workspace Name"), { target: { value: "Research" } });
    await user.click(within(dialog).getByRole("button", { name: /^Create$/ }));
    expect(await screen.findByText("Failed to create workspace. Please try again.")).toBeInTheDocument();
    expect(screen.getByText("A workspace named Research already exists.")).toBeInTheDocument();
  });

  it("keeps Update disabled while the name is unchanged or blank", async () => {
    const user = userEvent.setup({ delay: null });
    const requests = recordRequests();
    renderList(
      admin,
      listWorkspaces(),
      http.get(api("/v1/workspaces/ws-2"), () => HttpResponse.json(workspaces[1])),
      http.put(api("/v1/workspaces/ws-2"), () => HttpResponse.json({ ...workspaces[1], name: "Blue Team" })),
    );
    await user.click(await screen.findByRole("button", { name: "Edit workspace Red Team" }));
    const dialog = await findDialog("Edit Workspace");
    // The field is filled once the workspace has loaded (the dialog may re-render its form meanwhile).
    await waitFor(() => expect(within(dialog).getByLabelText("Workspace Name")).toHaveValue("Red Team"));
    const input = within(dialog).getByLabelText("Workspace Name");
    const update = within(dialog).getByRole("button", { name: /^Update$/ });
    expect(update).toBeDisabled();
    // One change event per value: typing key by key re-renders the whole dialog per key.
    fireEvent.change(input, { target: { value: "Red Team  " } });
    expect(update).toBeDisabled();
    fireEvent.change(input, { target: { value: "" } });
    await waitFor(() => expect(update).toBeDisabled());
    fireEvent.change(input, { target: { value: "Blue Team" } });
    await waitFor(() => expect(update).toBeEnabled());
    await user.click(update);
    await waitFor(() => expect(requests("PUT", "/v1/workspaces/ws-2")).toHaveLength(1));
    expect(JSON.parse(requests("PUT", "/v1/workspaces/ws-2")[0]?.body ?? "")).toEqual({
      name: "Blue Team",
      organization_uuid: "org-1",
    });
  });

  it("deletes after confirmation", async () => {
    const user = userEvent.setup({ delay: null });
    const requests = recordRequests();
    renderList(
      admin,
      listWorkspaces(),
      http.delete(api("/v1/workspaces/ws-2"), () => apiError(500, "internal", "Database unavailable")),
    );
    await user.click(await screen.findByRole("button", { name: "Delete workspace Red Team" }));
    const dialog = await findDialog("Delete Workspace");
    expect(requests("DELETE", "/v1/workspaces/ws-2")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: /^Delete$/ }));
    expect(await screen.findByText("Failed to delete workspace. Please try again.")).toBeInTheDocument();
    expect(requests("DELETE", "/v1/workspaces/ws-2")).toHaveLength(1);
  });
});

describe("workspace details", () => {
  const members = [
    { email: "admin@acme.test", user_id: "u-a", role: "admin" },
    { email: "member@acme.test", user_id: "u-m", role: null },
  ];
  const orgUsers = [...members, { email: "newcomer@acme.test", user_id: "u-n", role: "member" }];

  const detailsApi = [
    http.get(api("/v1/workspaces/ws-1"), () => HttpResponse.json(workspaces[0])),
    http.get(api("/v1/workspaces/ws-1/members"), () => HttpResponse.json(members)),
    http.post(api("/v1/workspaces/ws-1/members"), () => apiError(409, "conflict", "Already a member")),
    http.get(api("/v1/accounts/organization/users"), () => HttpResponse.json(orgUsers)),
  ];

  const renderShow = (path: string, me: Partial<CurrentUser>, handlers = detailsApi) =>
    renderPage(<WorkspaceShowPage />, { route: workspacesResource.show as string, path, me, handlers });

  it("shows the workspace facts and lets an administrator add only non-members", async () => {
    const user = userEvent.setup({ delay: null });
    const requests = recordRequests();
    renderShow("/workspace/ws-1", admin);
    expect(await screen.findByText("Workspace Name")).toBeInTheDocument();
    expect(screen.getByText("Organization")).toBeInTheDocument();
    expect(screen.getByText("Workspace ID")).toBeInTheDocument();
    expect(screen.getAllByText("ws-1").length).toBeGreaterThan(0);
    expect(screen.getByText("Workspace Members")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Workspaces/ })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
    expect(await screen.findByRole("link", { name: /View Dashboard/ })).toHaveAttribute("href", "/");
    expect(await screen.findByText("member@acme.test")).toBeInTheDocument();
    expect(screen.getAllByText("Member").length).toBeGreaterThan(0);

    const add = await screen.findByRole("button", { name: /Add Member$/ });
    expect(add).toBeDisabled();
    await user.click(screen.getByRole("combobox", { name: "User to add" }));
    await waitFor(() =>
      expect(screen.getAllByRole("option").map((o) => o.textContent)).toEqual(["newcomer@acme.test"]),
    );
    await user.click(screen.getByText("newcomer@acme.test", { selector: ".ant-select-item-option-content" }));
    expect(add).toBeEnabled();
    await user.click(add);
    await waitFor(() => expect(requests("POST", "/v1/workspaces/ws-1/members")).toHaveLength(1));
    expect(requests("POST", "/v1/workspaces/ws-1/members")[0]?.url.searchParams.get("user_email")).toBe(
      "newcomer@acme.test",
    );
    expect(await screen.findByText("Failed to add member. Please try again.")).toBeInTheDocument();
  });

  it("removes a member after confirmation and reports a failure", async () => {
    const user = userEvent.setup({ delay: null });
    const requests = recordRequests();
    renderShow("/workspace/ws-1", admin, [
      ...detailsApi,
      http.delete(api("/v1/workspaces/ws-1/members/:email"), () =>
        apiError(500, "internal", "Database down"),
      ),
    ]);
    await user.click(await screen.findByRole("button", { name: "Remove member@acme.test" }));
    expect(requests("DELETE", "/v1/workspaces/ws-1/members/member%40acme.test")).toHaveLength(0);
    await user.click(await screen.findByRole("button", { name: "Remove" }));
    expect(await screen.findByText("Failed to remove member. Please try again.")).toBeInTheDocument();
    expect(requests("DELETE", "/v1/workspaces/ws-1/members/member%40acme.test")).toHaveLength(1);
  });

  it("shows a member the workspace without member management or the dashboard link", async () => {
    const requests = recordRequests();
    renderShow("/workspace/ws-1", member);
    expect(await screen.findByText("Workspace Members")).toBeInTheDocument();
    expect(await screen.findByText("admin@acme.test")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByRole("button", { name: /Add Member$/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Remove/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("link", { name: /View Dashboard/ })).not.toBeInTheDocument();
    // Members are not offered anyone to add, so the organization's users are not fetched.
    expect(requests("GET", "/v1/accounts/organization/users")).toHaveLength(0);
  });

  it("says Workspace not found with the link back when the id in the URL is not a UUID", async () => {
    renderShow("/workspace/not-a-uuid", admin, [
      http.get(api("/v1/workspaces/not-a-uuid"), () =>
        apiError(400, "invalid_request", "path parameter workspace_uuid must be a UUID"),
      ),
    ]);
    expect(await screen.findByText("Workspace not found")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Workspaces/ })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
    expect(screen.queryByText(/must be a UUID/)).not.toBeInTheDocument();
  });

  it("says Workspace not found with a link back", async () => {
    renderShow("/workspace/gone", admin, [
      http.get(api("/v1/workspaces/gone"), () => apiError(404, "not_found", "Not found")),
    ]);
    expect(await screen.findByText("Workspace not found")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Workspaces/ })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
  });
});
