import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthGate } from "../../src/components/auth/auth-gate";
import { RouteError } from "../../src/components/feedback/route-error";
import { StartupError } from "../../src/components/feedback/startup-error";
import { parseConsoleConfig } from "../../src/lib/console-config";
import { AccountSettingsPage } from "../../src/pages/account/account-settings-page";
import { loadConsoleConfig } from "../../src/providers/config-loader";
import { AuthRefreshError, createIdentityClient } from "../../src/providers/identity-client";
import { AUTH_URL, authResponseBody, fakeAuthClient, jsonResponse } from "./support/fakes";
import { renderPage } from "./support/render-page";

describe("loading /config.json", () => {
  it("reads the config from the console's own origin", async () => {
    const fetchImpl = vi.fn<typeof fetch>(async () =>
      jsonResponse(200, {
        apiUrl: "http://localhost:3000",
        authUrl: "http://localhost:3001",
        productName: "Eval Console",
      }),
    );
    await expect(loadConsoleConfig(fetchImpl)).resolves.toEqual({
      apiUrl: "http://localhost:3000",
      authUrl: "http://localhost:3001",
      productName: "Eval Console",
    });
    expect(fetchImpl.mock.calls[0]?.[0]).toBe("/config.json");
  });

  it("reads the configuration the server wrote into the page, without a request", async () => {
    const fetchImpl = vi.fn<typeof fetch>();
    const page = new DOMParser().parseFromString(
      `<script type="application/json" id="console-config">{"apiUrl":"https://api.example.test/","authUrl":"https://auth.example.test","productName":"Eval Console"}</script>`,
      "text/html",
    );
    await expect(loadConsoleConfig(fetchImpl, page)).resolves.toEqual({
      apiUrl: "https://api.example.test",
      authUrl: "https://auth.example.test",
      productName: "Eval Console",
    });
    expect(fetchImpl).not.toHaveBeenCalled();
    // Checked as /config.json's answer is, with the same words.
    const relative = new DOMParser().parseFromString(
      `<script type="application/json" id="console-config">{"apiUrl":"https://api.example.test","authUrl":"auth.example.test"}</script>`,
      "text/html",
    );
    await expect(loadConsoleConfig(fetchImpl, relative)).rejects.toThrow(
      'config.json: "authUrl" is not an absolute URL',
    );
    const broken = new DOMParser().parseFromString(
      `<script type="application/json" id="console-config">{"apiUrl":</script>`,
      "text/html",
    );
    await expect(loadConsoleConfig(fetchImpl, broken)).rejects.toThrow(/in the page is not valid JSON/);
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it("explains what failed: status, bad JSON, unreachable", async () => {
    await expect(loadConsoleConfig(async () => new Response("", { status: 404 }))).rejects.toThrow(
      /status 404/,
    );
    await expect(loadConsoleConfig(async () => new Response("<html>", { status: 200 }))).rejects.toThrow(
      /not valid JSON/,
    );
    await expect(
      loadConsoleConfig(async () => {
        throw new TypeError("Failed to fetch");
      }),
    ).rejects.toThrow(/could not be downloaded/);
  });
});

function Broken(): never {
  throw new Error("Workspace data is malformed");
}

describe("route error boundary", () => {
  it("shows the error instead of a blank page when a route throws", async () => {
    // React logs caught render errors; keep the test output readable.
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const router = createMemoryRouter([{ path: "/", element: <Broken />, errorElement: <RouteError /> }]);
    render(<RouterProvider router={router} />);

    expect(await screen.findByText("Something went wrong")).toBeInTheDocument();
    expect(screen.getByText("Workspace data is malformed")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reload page" })).toBeInTheDocument();
    quiet.mockRestore();
  });
});

describe("start-up failures", () => {
  it("an invalid auth URL reads 'Unable to initialize auth client' with the detail below", () => {
    let error: unknown;
    try {
      parseConsoleConfig({ apiUrl: "http://localhost:3000", authUrl: "auth.example.test" });
    } catch (caught) {
      error = caught;
    }
    render(<StartupError error={error} onRetry={() => {}} />);
    expect(screen.getByText("Unable to initialize auth client")).toBeInTheDocument();
    expect(screen.getByText('config.json: "authUrl" is not an absolute URL')).toBeInTheDocument();
    expect(screen.queryByText("The console could not start")).not.toBeInTheDocument();
  });

  it("other configuration problems keep their own title", () => {
    render(<StartupError error={new Error("config.json is not a JSON object")} onRetry={() => {}} />);
    expect(screen.getByText("The console could not start")).toBeInTheDocument();
    expect(screen.getByText("config.json is not a JSON object")).toBeInTheDocument();
  });
});

describe("sign-in service outage", () => {
  it("shows the refresh error with Try again, which signs the tab in once the service answers", async () => {
    const client = fakeAuthClient();
    const signedIn = client.getAuthenticationInfoOrNull;
    const failing = vi.fn(async () => {
      throw new AuthRefreshError(500, "500 Internal Server Error");
    });
    client.getAuthenticationInfoOrNull = failing;
    const { navigator } = renderPage(
      <AuthGate>
        <AccountSettingsPage />
      </AuthGate>,
      { route: "/account/settings", client },
    );

    expect(await screen.findByText("Unable to reach the sign-in service")).toBeInTheDocument();
    expect(screen.getByText("500 Internal Server Error")).toBeInTheDocument();
    expect(screen.getByText(/Trying again automatically in 5 s/)).toBeInTheDocument();
    expect(screen.queryByText("Loading...")).not.toBeInTheDocument();
    expect(navigator.assign).not.toHaveBeenCalled();
    const calls = failing.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(failing.mock.calls.length).toBe(calls);

    // While the retry is under way the error stays, saying so (no "Loading..." in its place).
    let answer: () => void = () => {};
    client.getAuthenticationInfoOrNull = vi.fn(
      () =>
        new Promise<Awaited<ReturnType<typeof signedIn>>>((resolve) => (answer = () => resolve(signedIn()))),
    );
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("Trying again...")).toBeInTheDocument();
    expect(screen.getByText("Unable to reach the sign-in service")).toBeInTheDocument();
    expect(screen.queryByText("Loading...")).not.toBeInTheDocument();
    client.getAuthenticationInfoOrNull = signedIn;
    answer();
    expect(await screen.findByRole("heading", { name: "Account Settings" })).toBeInTheDocument();
    expect(navigator.assign).not.toHaveBeenCalled();
  });
});

describe("the session request started with the console", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  /** The identity client with its start-up request answered by `answer`, once that round (of
   * `calls` requests: the client retries all but a 401) has ended. */
  async function clientAfterStartup(answer: () => Response, calls: number) {
    const fetchMock = vi.fn<typeof fetch>(async () => answer());
    vi.stubGlobal("fetch", fetchMock);
    const client = createIdentityClient(AUTH_URL);
    // The console's code is still loading: nobody asks until the round (and its retries) ended.
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(calls));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { client, fetchMock };
  }

  it("a failing round is every reader's answer until Try again, however late they come", async () => {
    const { client, fetchMock } = await clientAfterStartup(
      () => new Response("", { status: 500, statusText: "Internal Server Error" }),
      4,
    );
    try {
      // The current user and the auth check each read it, in any order.
      for (let reader = 0; reader < 3; reader += 1) {
        const failure = await client.getAuthenticationInfoOrNull().catch((error: unknown) => error);
        expect((failure as AuthRefreshError).message).toBe("500 Internal Server Error");
      }
      expect(fetchMock).toHaveBeenCalledTimes(4);
      // Try again: a new round.
      client.retryFailedStart();
      await client.getAuthenticationInfoOrNull().catch(() => {});
      expect(fetchMock).toHaveBeenCalledTimes(8);
    } finally {
      client.destroy();
    }
  });

  it("a forced refresh after a failed round asks again, and its answer is the session", async () => {
    let failing = true;
    const { client, fetchMock } = await clientAfterStartup(
      () =>
        failing
          ? new Response("", { status: 500, statusText: "Internal Server Error" })
          : jsonResponse(200, authResponseBody()),
      4,
    );
    try {
      failing = false;
      expect((await client.getAuthenticationInfoOrNull(true))?.accessToken).toBe("token-123");
      expect((await client.getAuthenticationInfoOrNull())?.accessToken).toBe("token-123");
      expect(fetchMock).toHaveBeenCalledTimes(5);
    } finally {
      client.destroy();
    }
  });

  it("a signed-out answer is read once without asking again", async () => {
    const { client, fetchMock } = await clientAfterStartup(() => new Response("", { status: 401 }), 1);
    try {
      await expect(client.getAuthenticationInfoOrNull()).resolves.toBeNull();
      expect(fetchMock).toHaveBeenCalledTimes(1);
    } finally {
      client.destroy();
    }
  });

  it("a signed-in answer is the client's session from then on; a forced refresh asks again", async () => {
    const { client, fetchMock } = await clientAfterStartup(() => jsonResponse(200, authResponseBody()), 1);
    try {
      expect((await client.getAuthenticationInfoOrNull())?.accessToken).toBe("token-123");
      expect((await client.getAuthenticationInfoOrNull())?.accessToken).toBe("token-123");
      expect(fetchMock).toHaveBeenCalledTimes(1);
      await client.getAuthenticationInfoOrNull(true);
      expect(fetchMock).toHaveBeenCalledTimes(2);
    } finally {
      client.destroy();
    }
  });
});
