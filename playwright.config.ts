import { defineConfig } from "@playwright/test";
import { CHROMIUM } from "./tests/e2e/chromium";

// The browser tests start the real product (embedded PGlite in a fresh directory, demo seeded)
// on their own ports and drive it in Debian's Chromium; no browser is ever downloaded.
// E2E_PORT lets several browser runs share a machine (console on E2E_PORT, identity on +1).
const PORT = Number(process.env.E2E_PORT ?? 3200);
const AUTH_PORT = PORT + 1;
export const E2E = {
  console: `http://localhost:${PORT}`,
  auth: `http://localhost:${AUTH_PORT}`,
  password: "e2e-demo-password",
  /** The server's backend API key: a provider operator's credential (ingestion keys, credits). */
  backendKey: "e2e-backend-api-key-not-a-secret-0123456789",
};

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: process.env.E2E_PORT ? `test-results/${process.env.E2E_PORT}` : "test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  use: {
    baseURL: E2E.console,
    // As someone who asked for reduced motion: dialogs, drawers and toasts appear at once, so a
    // click never lands on a dialog that is still zooming in (it moved away between press and
    // release). The bench's visits keep the animations users see.
    reducedMotion: "reduce",
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: CHROMIUM,
  },
  webServer: {
    command: `bash scripts/e2e-server.sh ${PORT} ${AUTH_PORT} ${E2E.password} ${E2E.backendKey}`,
    url: `${E2E.console}/readyz`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
  },
});
