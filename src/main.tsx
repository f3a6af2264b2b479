// The entry holds only the first request chain: the configuration (written into the page by the
// server, else /config.json, which index.html preloads), then the identity client, whose creation
// starts the session refresh, and the current user once the session answers. The console itself
// (React, antd, Refine, the layout and the routes, over a megabyte of script) is a chunk of its
// own, which index.html's modulepreload link downloads with the page; when the entry held it all,
// the session refresh started only after all of it had been evaluated.
import { loadConsoleConfig } from "./providers/config-loader";
import { createServices } from "./providers/create-services";
import { createIdentityClient } from "./providers/identity-client";
import type { ConsoleStart } from "./render-console";

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");

// Settled into a value, so that a failure is shown by the shell and never left unhandled meanwhile.
const start: Promise<ConsoleStart> = loadConsoleConfig()
  .then((config) => {
    const services = createServices({ config, client: createIdentityClient(config.authUrl) });
    // The current user (/v1/accounts/me), which the layout and every access check wait for, is
    // asked for as soon as the session answers; the shell finds it under way or answered. Its
    // failure is the auth check's or the layout's to show.
    services.currentUser.get().catch(() => {});
    return { services };
  })
  .catch((error: unknown) => ({ error }));

import("./render-console").then(
  ({ renderConsole }) => renderConsole(container, start),
  (error: unknown) => showShellLoadFailure(container, error),
);

/** The console's code could not be downloaded (a network failure, or a new deployment replaced
 * it): plain text, since antd is in the code that failed, and a reload to fetch it again. */
function showShellLoadFailure(root: HTMLElement, error: unknown) {
  const title = document.createElement("p");
  title.textContent = "The console could not start";
  const detail = document.createElement("p");
  detail.textContent = error instanceof Error ? error.message : String(error);
  const reload = document.createElement("button");
  reload.type = "button";
  reload.textContent = "Reload";
  reload.addEventListener("click", () => window.location.reload());
  const box = document.createElement("div");
  box.style.cssText = "color: rgba(255, 255, 255, 0.85); font-family: sans-serif; padding: 24px";
  box.append(title, detail, reload);
  root.replaceChildren(box);
}
