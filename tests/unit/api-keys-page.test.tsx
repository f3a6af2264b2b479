import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http, type RequestHandler } from "msw";
import { describe, expect, it } from "vitest";
import { ApiKeysPage } from "../../src/pages/api-keys/api-keys-page";
import { apiKeys as resource } from "../../src/resources/api-keys";
import { findDialog } from "./support/dialogs";
import { identity, renderPage, server } from "./support/render-page";

const HOUR = 3600;
const keys = Array.from({ length: 25 }, (_, i) => ({
  api_key_id: `key${String(i).padStart(2, "0")}`,
  created_at: Date.UTC(2026, 0, 1 + i) / 1000,
  expires_at_seconds: i === 0 ? null : Date.UTC(2027, 0, 1 + i) / 1000 + HOUR,
  metadata: null,
}));

/** The identity service's key list, answered from `keys`. */
const listKeys = http.get(identity("/personal_api_keys"), ({ request }) => {
  const url = new URL(request.url);
  const page = Number(url.searchParams.get("page_number") ?? 0);
  const size = Number(url.searchParams.get("page_size") ?? 10);
  const search = url.searchParams.get("api_key_search") ?? "";
  const matching = keys.filter((k) => k.api_key_id.includes(search));
  return HttpResponse.json({
    api_keys: matching.slice(page * size, page * size + size),
    total_api_keys: matching.length,
    current_page: page,
    page_size: size,
    has_more_results: (page + 1) * size < matching.length,
  });
});

/** The requests the identity service received. */
function recordRequests() {
  const seen: Request[] = [];
  server.events.on("request:start", ({ request }) => {
    seen.push(request.clone());
  });
  return seen;
}
const listQueries = (seen: Request[]) =>
  seen
    .map((request) => new URL(request.url))
    .filter((url) => url.pathname === "/api/fe/v3/personal_api_keys")
    .map((url) => Object.fromEntries(url.searchParams));

const renderKeys = (...handlers: RequestHandler[]) =>
  renderPage(<ApiKeysPage />, { route: resource.list as string, handlers: [...handlers, listKeys] });

/** The table is inert (pointer-events: none) while a refetch spins; a user waits for it too. */
async function tableSettled(): Promise<void> {
  await waitFor(() => expect(document.querySelector(".ant-spin-blur")).toBeNull());
}

describe("Personal API Keys", () => {
  it("lists keys with Created/Expires, pages with Previous/Next and calls the identity service", async () => {
    const user = userEvent.setup({ delay: null });
    const seen = recordRequests();
    renderKeys();
    expect(await screen.findByRole("heading", { name: "Personal API Keys" })).toBeInTheDocument();
    expect(await screen.findByText("key00")).toBeInTheDocument();
    for (const header of ["Key ID", "Created", "Expires", "Actions"]) {
      expect(screen.getByRole("columnheader", { name: header })).toBeInTheDocument();
    }
    const first = screen.getByText("key00").closest("tr") as HTMLElement;
    expect(within(first).getByText("Jan 1, 2026")).toBeInTheDocument();
    expect(within(first).getByText("Never")).toBeInTheDocument();
    expect(screen.getByText("Showing page 1 of 3 (25 total)")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Previous" })).toBeDisabled();

    const call = seen.find((request) => request.url.includes("/personal_api_keys"));
    expect(call?.credentials).toBe("include");
    expect(call?.headers.get("X-CSRF-Token")).toBeTruthy();
    expect(listQueries(seen)[0]).toEqual({ page_number: "0", page_size: "10" });

    await tableSettled();
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByText("Showing page 2 of 3 (25 total)")).toBeInTheDocument();
    expect(await screen.findByText("key10")).toBeInTheDocument();
    expect(listQueries(seen).at(-1)).toEqual({ page_number: "1", page_size: "10" });
    await tableSettled();
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByText("Showing page 3 of 3 (25 total)")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole("button", { name: "Next" })).toBeDisabled());
  });

  it("debounces the search and goes back to the first page when the text changes", async () => {
    const user = userEvent.setup({ delay: null });
    const seen = recordRequests();
    renderKeys();
    await screen.findByText("key00");
    await tableSettled();
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("Showing page 2 of 3 (25 total)");
    await screen.findByText("key10");
    const before = listQueries(seen).length;

    await user.type(screen.getByPlaceholderText("Search by Key ID"), "key2");
    // One request for the whole word, not one per keystroke.
    await screen.findByText("Showing page 1 of 1 (5 total)");
    expect(listQueries(seen).slice(before)).toEqual([
      { page_number: "0", page_size: "10", api_key_search: "key2" },
    ]);
    expect(await screen.findByText("key24")).toBeInTheDocument();
    expect(screen.queryByText("key00")).not.toBeInTheDocument();

    await user.clear(screen.getByPlaceholderText("Search by Key ID"));
    await user.type(screen.getByPlaceholderText("Search by Key ID"), "nothing");
    expect(await screen.findByText("No API keys found")).toBeInTheDocument();
    expect(screen.getByText("Showing page 1 of 1 (0 total)")).toBeInTheDocument();
  });

  it("creates a key (one year by default), shows it once with copy buttons, and forgets it on close", async () => {
    const user = userEvent.setup({ delay: null });
    const bodies: unknown[] = [];
    renderKeys(
      http.post(identity("/api_keys"), async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ api_key_id: "newkey", api_key_token: "secret-token-value" });
      }),
    );
    await screen.findByText("key00");

    await user.click(await screen.findByRole("button", { name: /Create API Key$/ }));
    const create = await findDialog("Create API Key");
    expect(within(create).getByText("One year")).toBeInTheDocument();
    await user.click(within(create).getByRole("button", { name: /^Create$/ }));

    const shown = await findDialog("Your new API key");
    expect(bodies).toEqual([{ expiration_option: "OneYear" }]);
    expect(within(shown).getByLabelText("Key ID")).toHaveValue("newkey");
    expect(within(shown).getByLabelText("API Key")).toHaveValue("secret-token-value");
    expect(within(shown).getByText("Sensitive")).toBeInTheDocument();
    expect(within(shown).getByText(/shown only once/)).toBeInTheDocument();

    await user.click(within(shown).getByRole("button", { name: "Copy API Key" }));
    expect(await screen.findByText("Copied API Key")).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe("secret-token-value");
    await user.click(within(shown).getByRole("button", { name: "Copy Key ID" }));
    expect(await screen.findByText("Copied Key ID")).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe("newkey");

    await user.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByDisplayValue("secret-token-value")).not.toBeInTheDocument());
  });

  it("reports a refused creation with the fallback message for its error code", async () => {
    const user = userEvent.setup({ delay: null });
    renderKeys(
      http.post(identity("/api_keys"), () =>
        HttpResponse.json({ error_code: "action_forbidden" }, { status: 403 }),
      ),
    );
    await screen.findByText("key00");
    await user.click(await screen.findByRole("button", { name: /Create API Key$/ }));
    const create = await findDialog("Create API Key");
    await user.click(within(create).getByRole("button", { name: /^Create$/ }));
    expect(await screen.findByText("Failed to create API key")).toBeInTheDocument();
    expect(screen.getByText("No permission to create a personal API key")).toBeInTheDocument();
  });

  it("deletes a key only after confirmation, then reads the list again", async () => {
    const user = userEvent.setup({ delay: null });
    const seen = recordRequests();
    renderKeys(http.delete(identity("/api_keys/key03"), () => HttpResponse.json({})));
    await screen.findByText("key03");
    await tableSettled();
    await user.click(await screen.findByRole("button", { name: "Delete API key key03" }));
    const dialog = await findDialog("Delete API Key");
    const deletes = () => seen.filter((request) => request.method === "DELETE");
    expect(deletes()).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: /^Delete$/ }));
    await waitFor(() => expect(deletes()).toHaveLength(1));
    await waitFor(() => expect(listQueries(seen).length).toBeGreaterThan(1));
  });

  it("explains a list failure by its error code", async () => {
    renderKeys(
      http.get(identity("/personal_api_keys"), () =>
        HttpResponse.json({ error_code: "action_disabled" }, { status: 403 }),
      ),
    );
    expect(await screen.findByText("Personal API keys are disabled")).toBeInTheDocument();
  });
});
