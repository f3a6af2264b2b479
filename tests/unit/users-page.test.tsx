// The Users page on the identity service's organization calls, mocked at the fetch level.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { UsersPage } from "../../src/pages/users/users-page";
import { findDialog } from "./support/dialogs";
import { identity, renderPage, server } from "./support/render-page";

const ORG = "org-1";
const now = Math.floor(Date.now() / 1000);

const member = (n: number, overrides: Record<string, unknown> = {}) => ({
  user_id: `u${n}`,
  email: `user${String(n).padStart(2, "0")}@acme.test`,
  first_name: `First${n}`,
  last_name: `Last${n}`,
  last_active_at: now - 3 * 3600,
  role: "Member",
  additional_roles: [],
  possible_roles: ["Owner", "Admin", "Member"],
  can_be_deleted: true,
  is_enabled: true,
  is_2fa_enabled: false,
  ...overrides,
});

const ADMIN = member(0, {
  email: "admin@acme.test",
  first_name: "Ada",
  last_name: "Admin",
  role: "Admin",
  last_active_at: now - 2 * 86400,
  can_be_deleted: false,
});

/**
 * The members call, answering page `page_number` of `all` (10 a page) filtered by `email_search`,
 * once `answer` has resolved.
 */
function membersHandler(
  all: ReturnType<typeof member>[],
  seen: URLSearchParams[] = [],
  answer?: Promise<void>,
) {
  return http.get(identity(`/org_membership/${ORG}/members`), async ({ request }) => {
    await answer;
    const query = new URL(request.url).searchParams;
    seen.push(query);
    const search = query.get("email_search") ?? "";
    const size = Number(query.get("page_size"));
    const page = Number(query.get("page_number"));
    const matching = all.filter((m) => m.email.includes(search));
    const users = matching.slice(page * size, page * size + size);
    return HttpResponse.json({
      users,
      total_count: matching.length,
      page_number: page,
      page_size: size,
      has_more_results: (page + 1) * size < matching.length,
    });
  });
}

const invitesHandler = (invites: { email: string; role: string }[], asked: string[] = []) =>
  http.get(identity(`/org_membership/${ORG}/pending_invites`), ({ request }) => {
    asked.push(request.url);
    return HttpResponse.json({
      pending_invites: invites.map((i) => ({ ...i, additional_roles: [], expires_at_seconds: now + 86400 })),
      total_count: invites.length,
      page_number: 0,
      page_size: 10,
      has_more_results: false,
    });
  });

/** Records the JSON bodies POSTed to `path`; answers {} or the given error. */
function postHandler(
  path: string,
  bodies: unknown[],
  error?: { status: number; body: Record<string, unknown> },
) {
  return http.post(identity(path), async ({ request }) => {
    bodies.push(await request.json());
    return error ? HttpResponse.json(error.body, { status: error.status }) : HttpResponse.json({});
  });
}

const asAdmin = { is_admin: true, email: "admin@acme.test" };
const row = (email: string) => screen.getByRole("row", { name: new RegExp(email) });

describe("Users page", () => {
  it("lists the members with email, name, role and last active, and the pending invitations", async () => {
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [
        membersHandler([ADMIN, member(1, { first_name: null, last_name: null })]),
        invitesHandler([{ email: "invited@acme.test", role: "Admin" }]),
      ],
    });
    expect(screen.getByRole("heading", { name: "Users" })).toBeInTheDocument();
    expect(screen.getByText("Manage organization users and permissions")).toBeInTheDocument();
    const admin = await screen.findByRole("row", { name: /admin@acme\.test/ });
    expect(within(admin).getByText("Ada Admin")).toBeInTheDocument();
    expect(within(admin).getByText("Admin")).toBeInTheDocument();
    expect(within(admin).getByText("2 days ago")).toBeInTheDocument();
    const plain = row("user01@acme.test");
    // No name on the account reads as a dash.
    expect(within(plain).getByText("-")).toBeInTheDocument();
    expect(within(plain).getByText("3 hours ago")).toBeInTheDocument();
    // The service says who may be changed or removed: not the administrator themself.
    expect(await within(plain).findByRole("button", { name: "Remove user01@acme.test" })).toBeInTheDocument();
    expect(within(admin).queryByRole("button", { name: /Remove/ })).not.toBeInTheDocument();

    const invitations = screen.getByText("Pending invitations").closest(".ant-card") as HTMLElement;
    const invite = await within(invitations).findByRole("row", { name: /invited@acme\.test/ });
    expect(within(invite).getByText("Admin")).toBeInTheDocument();
  });

  it("shows the pending invitations only once the members above them have answered", async () => {
    // The members answer only when released; the invitations at once.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const invitesAsked: string[] = [];
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [
        membersHandler([ADMIN], [], released),
        invitesHandler([{ email: "invited@acme.test", role: "Admin" }], invitesAsked),
      ],
    });
    expect(await screen.findByText("Members")).toBeInTheDocument();
    // Fetched meanwhile, but not shown where the members table is still to grow.
    await waitFor(() => expect(invitesAsked).toHaveLength(1));
    expect(screen.queryByText("Pending invitations")).not.toBeInTheDocument();
    expect(screen.queryByText("invited@acme.test")).not.toBeInTheDocument();

    release();
    await screen.findByRole("row", { name: /admin@acme\.test/ });
    const invitations = (await screen.findByText("Pending invitations")).closest(".ant-card") as HTMLElement;
    expect(await within(invitations).findByRole("row", { name: /invited@acme\.test/ })).toBeInTheDocument();
  });

  it("pages by 10 and searches by email from the first page", async () => {
    const seen: URLSearchParams[] = [];
    const all = [ADMIN, ...Array.from({ length: 11 }, (_, i) => member(i + 1))];
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [membersHandler(all, seen), invitesHandler([])],
    });
    await screen.findByRole("row", { name: /admin@acme\.test/ });
    expect(seen.at(-1)?.get("page_size")).toBe("10");
    expect(screen.queryByRole("row", { name: /user10@acme\.test/ })).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole("listitem", { name: "2" }));
    await screen.findByRole("row", { name: /user11@acme\.test/ });
    expect(seen.at(-1)?.get("page_number")).toBe("1");

    fireEvent.change(screen.getByRole("textbox", { name: "Search users by email" }), {
      target: { value: "user0" },
    });
    await waitFor(() => expect(seen.at(-1)?.get("email_search")).toBe("user0"));
    expect(seen.at(-1)?.get("page_number")).toBe("0");
    await screen.findByRole("row", { name: /user09@acme\.test/ });
    expect(screen.queryByRole("row", { name: /admin@acme\.test/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("listitem", { name: "2" })).not.toBeInTheDocument();
  });

  it("invites by email and role, and shows the identity service's refusal in its own words", async () => {
    const invites: unknown[] = [];
    const pending: { email: string; role: string }[] = [];
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [
        membersHandler([ADMIN]),
        http.get(identity(`/org_membership/${ORG}/pending_invites`), () =>
          HttpResponse.json({
            pending_invites: pending.map((i) => ({ ...i, expires_at_seconds: now })),
            total_count: pending.length,
          }),
        ),
      ],
    });
    await screen.findByRole("row", { name: /admin@acme\.test/ });
    expect(await screen.findByText("No pending invitations")).toBeInTheDocument();

    server.use(
      http.post(identity("/invite_user"), async ({ request }) => {
        const body = (await request.json()) as { email: string; role: string };
        invites.push(body);
        pending.push({ email: body.email, role: body.role });
        return HttpResponse.json({});
      }),
    );
    fireEvent.click(await screen.findByRole("button", { name: /Invite user/ }));
    const dialog = await findDialog("Invite user");
    fireEvent.change(within(dialog).getByLabelText("Email"), { target: { value: "new@acme.test" } });
    fireEvent.mouseDown(within(dialog).getByRole("combobox"));
    fireEvent.click(await screen.findByTitle("Admin"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Send invitation" }));
    await waitFor(() => expect(invites).toEqual([{ org_id: ORG, email: "new@acme.test", role: "Admin" }]));
    expect(await screen.findByText("Invitation sent")).toBeInTheDocument();
    expect(await screen.findByRole("row", { name: /new@acme\.test/ })).toBeInTheDocument();

    const refused: unknown[] = [];
    server.use(
      postHandler("/invite_user", refused, {
        status: 400,
        body: {
          error_code: "action_already_complete",
          user_facing_error: "This user is already a member of the organization.",
        },
      }),
    );
    fireEvent.click(screen.getByRole("button", { name: /Invite user/ }));
    const again = await findDialog("Invite user");
    fireEvent.change(within(again).getByLabelText("Email"), { target: { value: "admin@acme.test" } });
    fireEvent.click(within(again).getByRole("button", { name: "Send invitation" }));
    expect(await screen.findByText("This user is already a member of the organization.")).toBeInTheDocument();
    expect(screen.getByText("Could not send the invitation")).toBeInTheDocument();
    expect(refused).toEqual([{ org_id: ORG, email: "admin@acme.test", role: "Member" }]);
  });

  it("changes a member's role among the roles the service offers", async () => {
    const changes: unknown[] = [];
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [
        membersHandler([ADMIN, member(1, { possible_roles: ["Admin", "Member"] })]),
        invitesHandler([]),
        postHandler("/change_role", changes),
      ],
    });
    await screen.findByRole("row", { name: /user01@acme\.test/ });
    fireEvent.click(await screen.findByRole("button", { name: "Change role of user01@acme.test" }));
    const dialog = await findDialog("Change role");
    expect(within(dialog).getByText("user01@acme.test")).toBeInTheDocument();
    fireEvent.mouseDown(within(dialog).getByRole("combobox"));
    expect(screen.queryByTitle("Owner")).not.toBeInTheDocument();
    fireEvent.click(await screen.findByTitle("Admin"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Save role" }));
    await waitFor(() => expect(changes).toEqual([{ org_id: ORG, user_id: "u1", role: "Admin" }]));
    expect(await screen.findByText("user01@acme.test is now Admin.")).toBeInTheDocument();
  });

  it("removes a member and revokes an invitation only after confirming", async () => {
    const removals: unknown[] = [];
    const revocations: unknown[] = [];
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [
        membersHandler([ADMIN, member(1)]),
        invitesHandler([{ email: "invited@acme.test", role: "Member" }]),
        postHandler("/remove_user", removals),
        postHandler("/revoke_user_invitation", revocations),
      ],
    });
    await screen.findByRole("row", { name: /user01@acme\.test/ });
    fireEvent.click(await screen.findByRole("button", { name: "Remove user01@acme.test" }));
    expect(await screen.findByText("Remove user01@acme.test from the organization?")).toBeInTheDocument();
    expect(removals).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(removals).toEqual([{ org_id: ORG, user_id: "u1" }]));
    expect(await screen.findByText("User removed")).toBeInTheDocument();

    fireEvent.click(
      await screen.findByRole("button", { name: "Revoke the invitation of invited@acme.test" }),
    );
    expect(await screen.findByText("Revoke the invitation of invited@acme.test?")).toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(revocations).toEqual([{ org_id: ORG, email: "invited@acme.test" }]));
    expect(await screen.findByText("Invitation revoked")).toBeInTheDocument();
  });

  it("shows a refused removal in the identity service's words", async () => {
    renderPage(<UsersPage />, {
      route: "/users",
      me: asAdmin,
      handlers: [
        membersHandler([ADMIN, member(1)]),
        invitesHandler([]),
        postHandler("/remove_user", [], {
          status: 403,
          body: { error_code: "action_forbidden", user_facing_error: "You can't remove someone above you." },
        }),
      ],
    });
    await screen.findByRole("row", { name: /user01@acme\.test/ });
    fireEvent.click(await screen.findByRole("button", { name: "Remove user01@acme.test" }));
    fireEvent.click(await screen.findByRole("button", { name: "Remove" }));
    expect(await screen.findByText("You can't remove someone above you.")).toBeInTheDocument();
    expect(screen.getByText("Could not remove the user")).toBeInTheDocument();
  });

  it("shows members the list read-only: no invitations, invite, role change or removal", async () => {
    const seen: URLSearchParams[] = [];
    // The service offers nothing to a member; the page must not depend on that alone.
    renderPage(<UsersPage />, {
      route: "/users",
      me: { is_admin: false },
      handlers: [membersHandler([ADMIN, member(1)], seen)],
    });
    await screen.findByRole("row", { name: /user01@acme\.test/ });
    expect(screen.getByRole("row", { name: /admin@acme\.test/ })).toBeInTheDocument();
    // Once the page knows the user may not manage users it says so; then nothing else may show.
    expect(
      await screen.findByText("Only administrators can invite, change roles or remove users."),
    ).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Remove/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Change role/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Invite user/ })).not.toBeInTheDocument();
    expect(screen.queryByText("Pending invitations")).not.toBeInTheDocument();
    expect(screen.queryByRole("columnheader", { name: "Actions" })).not.toBeInTheDocument();
  });

  it("shows an empty list, a failed list and a user without an organization", async () => {
    // While the list is loading the table spins over a blank body: "No users found" only once
    // the service has answered.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const view = renderPage(<UsersPage />, {
      route: "/users",
      me: { is_admin: false },
      handlers: [membersHandler([], [], answered)],
    });
    expect(await screen.findByRole("columnheader", { name: "Email" })).toBeInTheDocument();
    expect(document.querySelector(".ant-spin-spinning")).not.toBeNull();
    expect(screen.queryByText("No users found")).toBeNull();
    answer();
    expect(await screen.findByText("No users found")).toBeInTheDocument();
    view.unmount();

    const failed = renderPage(<UsersPage />, {
      route: "/users",
      me: { is_admin: false },
      handlers: [
        http.get(identity(`/org_membership/${ORG}/members`), () =>
          HttpResponse.json(
            { error_code: "org_not_found", user_facing_error: "Organization not found." },
            { status: 404 },
          ),
        ),
      ],
    });
    expect(await screen.findByText("The users could not be loaded.")).toBeInTheDocument();
    expect(screen.getByText("Organization not found.")).toBeInTheDocument();
    failed.unmount();

    renderPage(<UsersPage />, { route: "/users", me: { organization: null } });
    expect(await screen.findByText("You are not a member of an organization.")).toBeInTheDocument();
  });
});
