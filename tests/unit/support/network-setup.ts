// Listens for every unit test file (setup files run once per file) and forgets each test's
// handlers and listeners after it.
import { afterAll, afterEach, beforeAll } from "vitest";
import { server } from "./network";

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  server.events.removeAllListeners();
});
afterAll(() => server.close());
