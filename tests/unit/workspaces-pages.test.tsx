import { configure, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { CurrentUser } from "../../src/providers/current-user-types";
import { accountsMe, jsonResponse } from "./support/fakes";
import { renderConsole } from "./support/render-console";

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

// The whole console renders in jsdom; the first paint of a page can take seconds.
configure({ asyncUtilTimeout: 10_000 });

/** antd labels every dialog with the same id under test, so dialogs are found by their title text. */
async function dialogTitled(title: string): Promise<HTMLElement> {
  const heading = await screen.findByText(title, { selector: ".ant-modal-title" });
  const dialog = heading.closest<HTMLElement>("[role=dialog]");
  if (!dialog) throw new Error(`no dialog titled ${title}`);
  return dialog;
}

type Handler = (url: URL, init: RequestInit) => Response | undefined;

/** The console against a fake product API: GET /v1/accounts/me plus the given handler. */
function renderWith(path: string, me: Partial<CurrentUser>, handler: Handler) {
  const view = renderConsole({ path, me });
  view.fetchImpl.mockImplementation(async (input, init = {}) => {
    const url = new URL(String(input));
    if (url.pathname === "/v1/accounts/me") return jsonResponse(200, accountsMe(me));
    return handler(url, init) ?? jsonResponse(404, { error: { code: "not_found", message: "Not found" } });
  });
  return view;
}

const calls = (fetchImpl: ReturnType<typeof renderConsole>["fetchImpl"], method: string, pathname: string) =>
  fetchImpl.mock.calls.filter(
    ([input, init]) => new URL(String(input)).pathname === pathname && (init?.method ?? "GET") === method,
  );

const admin = { is_admin: true, email: "admin@acme.test" };
const member = { is_admin: false, email: "member@acme.test" };

describe("workspace list", { timeout: 60_000 }, () => {
  it("shows an administrator the cards with management controls and the Current badge", async () => {
    renderWith("/organization/workspaces", admin, (url) =>
      url.pathname === "/v1/workspaces/" ? jsonResponse(200, workspaces) : undefined,
    );
    const research = await screen.findByRole("article", { name: "Research" });
    expect(screen.getByRole("heading", { name: "Manage Workspaces" })).toBeInTheDocument();
    expect(within(research).getByText("Current")).toBeInTheDocument();
    expect(within(research).getByText("Acme AI")).toBeInTheDocument();
    expect(within(research).getByText("2 members")).toBeInTheDocument();
    expect(within(research).getByText("Active")).toBeInTheDocument();
    expect(within(research).getByRole("link", { name: "View Workspace Details" })).toHaveAttribute(
      "href",
      "/workspace/ws-1",
    );
    const redTeam = screen.getByRole("article", { name: "Red Team" });
    expect(within(redTeam).queryByText("Current")).not.toBeInTheDocument();
    expect(within(redTeam).getByText("1 member")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Create Workspace$/ })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Edit workspace Red Team" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Delete workspace Red Team" })).toBeInTheDocument();
  });

  it("shows a member the workspaces without any management control", async () => {
    renderWith("/organization/workspaces", member, (url) =>
      url.pathname === "/v1/workspaces/" ? jsonResponse(200, workspaces) : undefined,
    );
    const research = await screen.findByRole("article", { name: "Research" });
    expect(within(research).getByText("Current")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Create/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Edit workspace/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Delete workspace/ })).not.toBeInTheDocument();
    expect(screen.queryByText("View Workspace Details")).not.toBeInTheDocument();
  });

  it("shows the empty state, with Create Your First Workspace only for administrators", async () => {
    const empty: Handler = (url) => (url.pathname === "/v1/workspaces/" ? jsonResponse(200, []) : undefined);
    const first = renderWith("/organization/workspaces", admin, empty);
    expect(await screen.findByText("No workspaces yet")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Create Your First Workspace$/ })).toBeInTheDocument();
    first.unmount();

    renderWith("/organization/workspaces", member, empty);
    expect(await screen.findByText("No workspaces yet")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Create Your First Workspace$/ })).not.toBeInTheDocument();
  });

  it("keeps Create disabled while the name is blank and sends the trimmed name", async () => {
    const user = userEvent.setup();
    const { fetchImpl } = renderWith("/organization/workspaces", admin, (url, init) => {
      if (url.pathname !== "/v1/workspaces/") return undefined;
      if (init.method === "POST") {
        const body = JSON.parse(String(init.body));
        return jsonResponse(201, {
          ...workspaces[1],
          workspace_uuid: "ws-3",
          name: body.name,
          member_count: 0,
        });
      }
      return jsonResponse(200, workspaces);
    });
    await user.click(await screen.findByRole("button", { name: /Create Workspace$/ }));
    const dialog = await dialogTitled("Create Workspace");
    const create = within(dialog).getByRole("button", { name: /^Create$/ });
    expect(create).toBeDisabled();
    await user.type(within(dialog).getByLabelText("Workspace Name"), "   ");
    expect(create).toBeDisabled();
    await user.type(within(dialog).getByLabelText("Workspace Name"), " Blue Team ");
    expect(create).toBeEnabled();
    await user.click(create);

    await waitFor(() => expect(calls(fetchImpl, "POST", "/v1/workspaces/")).toHaveLength(1));
    const [, init] = calls(fetchImpl, "POST", "/v1/workspaces/")[0] ?? [];
    expect(JSON.parse(String(init?.body))).toEqual({ name: "Blue Team", organization_uuid: "org-1" });
  });

  it("shows the create failure toast with the server's message", async () => {
    const user = userEvent.setup();
    renderWith("/organization/workspaces", admin, (url, init) => {
      if (url.pathname !== "/v1/workspaces/") return undefined;
      if (init.method === "POST") {
        return jsonResponse(409, {
          error: { code: "conflict", message: "A workspace named Research already exists." },
        });
      }
      return jsonResponse(200, workspaces);
    });
    await user.click(await screen.findByRole("button", { name: /Create Workspace$/ }));
    const dialog = await dialogTitled("Create Workspace");
    await user.type(within(dialog).getByLabelText("Workspace Name"), "Research");
    await user.click(within(dialog).getByRole("button", { name: /^Create$/ }));
    expect(await screen.findByText("Failed to create workspace. Please try again.")).toBeInTheDocument();
    expect(screen.getByText("A workspace named Research already exists.")).toBeInTheDocument();
  });

  it("keeps Update disabled while the name is unchanged or blank", async () => {
    const user = userEvent.setup();
    const { fetchImpl } = renderWith("/organization/workspaces", admin, (url, init) => {
      if (url.pathname === "/v1/workspaces/") return jsonResponse(200, workspaces);
      if (url.pathname === "/v1/workspaces/ws-2") {
        if (init.method === "PUT") return jsonResponse(200, { ...workspaces[1], name: "Blue Team" });
        return jsonResponse(200, workspaces[1]);
      }
      return undefined;
    });
    await user.click(await screen.findByRole("button", { name: "Edit workspace Red Team" }));
    const dialog = await dialogTitled("Edit Workspace");
    const input = within(dialog).getByLabelText("Workspace Name");
    await waitFor(() => expect(input).toHaveValue("Red Team"));
    const update = within(dialog).getByRole("button", { name: /^Update$/ });
    expect(update).toBeDisabled();
    await user.type(input, "  ");
    expect(update).toBeDisabled();
    await user.clear(input);
    expect(update).toBeDisabled();
    await user.type(input, "Blue Team");
    expect(update).toBeEnabled();
    await user.click(update);
    await waitFor(() => expect(calls(fetchImpl, "PUT", "/v1/workspaces/ws-2")).toHaveLength(1));
    const [, init] = calls(fetchImpl, "PUT", "/v1/workspaces/ws-2")[0] ?? [];
    expect(JSON.parse(String(init?.body))).toEqual({ name: "Blue Team", organization_uuid: "org-1" });
  });

  it("deletes after confirmation", async () => {
    const user = userEvent.setup();
    const { fetchImpl } = renderWith("/organization/workspaces", admin, (url, init) => {
      if (url.pathname === "/v1/workspaces/") return jsonResponse(200, workspaces);
      if (url.pathname === "/v1/workspaces/ws-2" && init.method === "DELETE") {
        return jsonResponse(500, { error: { code: "internal", message: "Database unavailable" } });
      }
      return undefined;
    });
    await user.click(await screen.findByRole("button", { name: "Delete workspace Red Team" }));
    const dialog = await dialogTitled("Delete Workspace");
    expect(calls(fetchImpl, "DELETE", "/v1/workspaces/ws-2")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: /^Delete$/ }));
    expect(await screen.findByText("Failed to delete workspace. Please try again.")).toBeInTheDocument();
    expect(calls(fetchImpl, "DELETE", "/v1/workspaces/ws-2")).toHaveLength(1);
  });
});

describe("workspace details", { timeout: 60_000 }, () => {
  const members = [
    { email: "admin@acme.test", user_id: "u-a", role: "admin" },
    { email: "member@acme.test", user_id: "u-m", role: null },
  ];
  const orgUsers = [...members, { email: "newcomer@acme.test", user_id: "u-n", role: "member" }];

  const detailsApi: Handler = (url, init) => {
    if (url.pathname === "/v1/workspaces/ws-1") return jsonResponse(200, workspaces[0]);
    if (url.pathname === "/v1/workspaces/ws-1/members") {
      if (init.method === "POST")
        return jsonResponse(409, { error: { code: "conflict", message: "Already a member" } });
      return jsonResponse(200, members);
    }
    if (url.pathname === "/v1/accounts/organization/users") return jsonResponse(200, orgUsers);
    return undefined;
  };

  it("shows the workspace facts and lets an administrator add only non-members", async () => {
    const user = userEvent.setup();
    const { fetchImpl } = renderWith("/workspace/ws-1", admin, detailsApi);
    expect(await screen.findByText("Workspace Name")).toBeInTheDocument();
    expect(screen.getByText("Organization")).toBeInTheDocument();
    expect(screen.getByText("Workspace ID")).toBeInTheDocument();
    expect(screen.getAllByText("ws-1").length).toBeGreaterThan(0);
    expect(screen.getByText("Workspace Members")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Workspaces/ })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
    expect(screen.getByRole("link", { name: /View Dashboard/ })).toHaveAttribute("href", "/");
    expect(await screen.findByText("member@acme.test")).toBeInTheDocument();
    expect(screen.getAllByText("Member").length).toBeGreaterThan(0);

    const add = screen.getByRole("button", { name: /Add Member$/ });
    expect(add).toBeDisabled();
    await user.click(screen.getByRole("combobox", { name: "User to add" }));
    const options = await screen.findAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual(["newcomer@acme.test"]);
    await user.click(screen.getByText("newcomer@acme.test", { selector: ".ant-select-item-option-content" }));
    expect(add).toBeEnabled();
    await user.click(add);
    await waitFor(() => expect(calls(fetchImpl, "POST", "/v1/workspaces/ws-1/members")).toHaveLength(1));
    const [input] = calls(fetchImpl, "POST", "/v1/workspaces/ws-1/members")[0] ?? [];
    expect(new URL(String(input)).searchParams.get("user_email")).toBe("newcomer@acme.test");
    expect(await screen.findByText("Failed to add member. Please try again.")).toBeInTheDocument();
  });

  it("shows a member the workspace without member management", async () => {
    renderWith("/workspace/ws-1", member, detailsApi);
    expect(await screen.findByText("Workspace Members")).toBeInTheDocument();
    expect(await screen.findByText("admin@acme.test")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Add Member$/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Remove/ })).not.toBeInTheDocument();
  });

  it("says Workspace not found with the link back when the id in the URL is not a UUID", async () => {
    renderWith("/workspace/not-a-uuid", admin, (url) =>
      url.pathname === "/v1/workspaces/not-a-uuid"
        ? jsonResponse(400, {
            error: { code: "invalid_request", message: "path parameter workspace_uuid must be a UUID" },
          })
        : undefined,
    );
    expect(await screen.findByText("Workspace not found")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Workspaces/ })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
    expect(screen.queryByText(/must be a UUID/)).not.toBeInTheDocument();
  });

  it("says Workspace not found with a link back", async () => {
    renderWith("/workspace/gone", admin, () => undefined);
    expect(await screen.findByText("Workspace not found")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Back to Workspaces/ })).toHaveAttribute(
      "href",
      "/organization/workspaces",
    );
  });
});
