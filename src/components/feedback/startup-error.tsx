// What the console shows when it cannot start: no config, or an auth URL the identity client
// refuses (spec §5: "Unable to initialize auth client", with the detail below it).
import { ConfigFieldError } from "../../lib/console-config";
import { AUTH_CLIENT_INIT_FAILED } from "../../providers/identity-client";
import { FullScreenError } from "./full-screen-error";

export function describeStartupError(error: unknown): { title: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const authClient =
    (error instanceof ConfigFieldError && error.field === "authUrl") ||
    message.startsWith(AUTH_CLIENT_INIT_FAILED);
  if (!authClient) return { title: "The console could not start", message };
  const detail = message.startsWith(`${AUTH_CLIENT_INIT_FAILED}: `)
    ? message.slice(AUTH_CLIENT_INIT_FAILED.length + 2)
    : message;
  return {
    title: AUTH_CLIENT_INIT_FAILED,
    message: detail === AUTH_CLIENT_INIT_FAILED ? "The configured auth URL is not valid." : detail,
  };
}

export function StartupError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { title, message } = describeStartupError(error);
  return <FullScreenError title={title} message={message} onRetry={onRetry} retryLabel="Reload" />;
}
