// Loads /config.json from the console's own origin before anything else starts.
import { type ConsoleConfig, parseConsoleConfig } from "../lib/console-config";

export async function loadConsoleConfig(fetchImpl: typeof fetch = fetch): Promise<ConsoleConfig> {
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
