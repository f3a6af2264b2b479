// The console's configuration, before anything else starts: from the page itself when the server
// wrote it there (no round trip before the session refresh), else from /config.json on the
// console's own origin (the dev server, or a host that sends index.html as it is).
import { CONSOLE_CONFIG_ID } from "../../contract/console-config";
import { type ConsoleConfig, parseConsoleConfig } from "../lib/console-config";

export async function loadConsoleConfig(
  fetchImpl: typeof fetch = fetch,
  doc: Pick<Document, "getElementById"> | undefined = globalThis.document,
): Promise<ConsoleConfig> {
  const written = doc?.getElementById(CONSOLE_CONFIG_ID)?.textContent;
  if (written) {
    let body: unknown;
    try {
      body = JSON.parse(written);
    } catch {
      throw new Error("The console configuration in the page is not valid JSON.");
    }
    return parseConsoleConfig(body);
  }
  let response: Response;
  try {
    response = await fetchImpl("/config.json", {
      headers: { Accept: "application/json" },
      cache: "no-store",
    });
  } catch {
    throw new Error("The console configuration (/config.json) could not be downloaded.");
  }
  if (!response.ok) {
    throw new Error(`The console configuration (/config.json) answered with status ${response.status}.`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new Error("The console configuration (/config.json) is not valid JSON.");
  }
  return parseConsoleConfig(body);
}
