import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { AuthGate } from "../../src/components/auth/auth-gate";
import { RouteError } from "../../src/components/feedback/route-error";
import { StartupError } from "../../src/components/feedback/startup-error";
import { parseConsoleConfig } from "../../src/lib/console-config";
import { AccountSettingsPage } from "../../src/pages/account/account-settings-page";
import { loadConsoleConfig } from "../../src/providers/config-loader";
import { AuthRefreshError } from "../../src/providers/identity-client";
import { fakeAuthClient, jsonResponse } from "./support/fakes";
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
