import { render, screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { RouteError } from "../../src/components/feedback/route-error";
import { loadConsoleConfig } from "../../src/providers/config-loader";
import { jsonResponse } from "./support/fakes";

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
