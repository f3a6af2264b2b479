// The entry holds only the first request chain: the configuration (written into the page by the
// server, else /config.json, which index.html preloads), then the identity client, whose creation
// starts the session refresh. The console itself (React, antd,
// Refine, the layout and the routes, over a megabyte of script) is a chunk of its own, downloaded
// with the page and run once the landing page's early requests have left; when the entry held it
// all, the session refresh started only after all of it had been evaluated.
import { DESKTOP_QUERY } from "./lib/breakpoints";
import { preloadLandingPageCode } from "./lib/landing-page-code";
import { startLandingReads } from "./lib/landing-reads";
import { sessionMembership } from "./lib/session-membership";
import { loadConsoleConfig } from "./providers/config-loader";
import { createServices } from "./providers/create-services";
import { createIdentityClient } from "./providers/identity-client";
import { createIdentityFetch, identityClientUrl } from "./providers/identity-fetch";
import type { ConsoleStart } from "./render-console";

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");

/** The longest the console's code waits for the landing page's early reads before it runs. */
const EARLY_READS_WAIT_MS = 400;

// Settled into a value, so that a failure is shown by the shell and never left unhandled meanwhile.
// `asked`: settles once every request the landing page's first render needs is on the wire.
const started: Promise<{ start: ConsoleStart; early: Promise<void>; asked: Promise<void> }> =
  loadConsoleConfig()
    .then((config) => {
      const client = createIdentityClient(config.authUrl);
      const services = createServices({ config, client });
      const session = client.getAuthenticationInfoOrNull();
      // The current user (/v1/accounts/me), which the layout and every access check wait for, is
      // asked for as soon as the session answers; the shell finds it under way or answered. Its
      // failure is the auth check's or the layout's to show.
      const user = services.currentUser.get();
      user.catch(() => {});
      // The landing page's first reads (lib/early-reads) start as soon as the session answers,
      // beside the current user: its organization and role say what the page will ask, and
      // whether its access rule lets it.
      let allAsked!: () => void;
      const readsAsked = new Promise<void>((resolve) => {
        allAsked = resolve;
      });
      const reads = startLandingReads({
        allAsked,
        apiUrl: config.apiUrl,
        apiFetch: services.apiFetch,
        identity: {
          url: identityClientUrl(config.authUrl),
          fetch: createIdentityFetch({ authUrl: config.authUrl }),
        },
        // A failed session check is the auth gate's to show: no reads meanwhile.
        session: session.then(sessionMembership, () => null),
        location: window.location,
        chartShown: window.matchMedia?.(DESKTOP_QUERY).matches ?? true,
      });
      // The shell waits for the current user too: with it, its own queries start answered.
      const early = Promise.allSettled([user, reads]).then(() => {});
      // The reads are sent from promise callbacks (the session's answer, then on Billing & Usage the
      // cycles'); a task after the last has been started, it is on the wire. A page that makes
      // none settles its reads at once; the current user is asked beside the first of them.
      const asked = Promise.race([readsAsked, reads.catch(() => {})]).then(() => nextTask());
      return { start: { services }, early, asked };
    })
    .catch((error: unknown) => ({
      start: { error },
      early: Promise.resolve(),
      asked: Promise.resolve(),
    }));

// The shell (index.html's modulepreload has it downloading already) is evaluated once the landing
// page's requests are on the wire, while they are: its evaluation (and the landing page's code it
// asks for) holds the main thread for a few tens of milliseconds, and the network would otherwise
// wait for it, or it for the network. Evaluated any earlier, it held up the answer that starts the
// next requests: the session's (35-50 ms on a warm Billing & Usage visit), or on Billing & Usage
// the cycles' (10-50 ms). It renders the console once the early reads and the current user are in:
// every answer that arrived during a render would be read only after it, a round of renders later;
// with all of them in, the shell renders the page in one pass (providers/known-answers,
// providers/first-answers).
// A session that has not answered after EARLY_READS_WAIT_MS (an identity service retrying, say)
// waits no more for either: the console shows its own state meanwhile, and its auth check shares
// the session request under way instead of starting another round once it has failed
// (providers/identity-client).
const waited = started.then(() => new Promise<void>((r) => setTimeout(r, EARLY_READS_WAIT_MS)));
const start = started.then(({ start, early }) => Promise.race([early, waited]).then(() => start));
const shell = started
  .then(({ asked }) => Promise.race([asked, waited]))
  .then(() => {
    // The landing page's code downloads while the shell is evaluated, not once it has been.
    preloadLandingPageCode(document, window.location.pathname);
    return import("./render-console");
  });

shell.then(
  ({ renderConsole }) => renderConsole(container, start),
  (error: unknown) => showShellLoadFailure(container, error),
);

function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

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
