// The unit tests' network: msw answers fetch calls with the handlers a test gives; a request no
// handler answers fails the test. Started and reset around every test file by network-setup.ts.
import { setupServer } from "msw/node";

export const server = setupServer();
