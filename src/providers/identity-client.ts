// The PropelAuth client as the console runs it. A failed GET /api/v1/refresh_token (after the
// client's own 3 retries, 100, 200 and 300 ms apart) becomes an AuthRefreshError carrying the
// spec's wording (§8), and background refreshes never leave a rejection unhandled.
import { type AuthenticationInfo, createClient, type IAuthClient } from "@propelauth/javascript";

/** Spec §8: status 0 (CORS, network) and unparsable answers. */
export const AUTH_RESPONSE_UNREADABLE = "Unable to process authentication response";

/** Spec §5: the client refuses an auth URL that is not a valid absolute URL. */
export const AUTH_CLIENT_INIT_FAILED = "Unable to initialize auth client";

/** Background refresh period (spec §4). */
export const BACKGROUND_REFRESH_MS = 60_000;

export class AuthRefreshError extends Error {
  /** HTTP status of the refresh answer; 0 when no answer could be read. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "AuthRefreshError";
    this.status = status;
  }
}

/** What the client rejected with, in the spec's words: "Unable to process authentication
 * response" when nothing readable came back, the status and its text otherwise. */
export function toAuthRefreshError(error: unknown): AuthRefreshError {
  if (error instanceof AuthRefreshError) return error;
  const shape = error as { status?: unknown; message?: unknown } | null;
  const status = typeof shape?.status === "number" ? shape.status : 0;
  const text = typeof shape?.message === "string" ? shape.message.trim() : "";
  // A fetch that never got an answer rejects with a TypeError (no status): the same as status 0.
  if (status === 0 || text === AUTH_RESPONSE_UNREADABLE) {
    return new AuthRefreshError(status, AUTH_RESPONSE_UNREADABLE);
  }
  return new AuthRefreshError(status, text ? `${status} ${text}` : `${status}`);
}

export type IdentityClient = IAuthClient & {
  /** After a failed start-up round, the next read asks the identity service again (Try again). */
  retryFailedStart: () => void;
};

/**
 * Creates the client with its own start-up fetch and 60 s timer turned off (their failures would
 * be unhandled rejections) and runs both here instead. Its focus and "online" refreshes stay: they
 * call the wrapped getAuthenticationInfoOrNull, and a failure there has already been reported to
 * whoever asked for the session, so its rejection is marked handled.
 */
export function createIdentityClient(authUrl: string, win: Window = window): IdentityClient {
  let client: IAuthClient;
  try {
    client = createClient({ authUrl, enableBackgroundTokenRefresh: false });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(detail === AUTH_CLIENT_INIT_FAILED ? detail : `${AUTH_CLIENT_INIT_FAILED}: ${detail}`);
  }
  const fetchInfo = client.getAuthenticationInfoOrNull.bind(client);
  const getInfo = async (forceRefresh?: boolean) => {
    try {
      return await fetchInfo(forceRefresh);
    } catch (error) {
      throw toAuthRefreshError(error);
    }
  };

  const markHandled = (event: PromiseRejectionEvent) => {
    if (event.reason instanceof AuthRefreshError) event.preventDefault();
  };
  win.addEventListener("unhandledrejection", markHandled);

  // The session request starts here, while the console's code loads. Its answer is the session's
  // first answer, whenever the console's code comes to read it:
  // - signed in: the client's own cache from the start;
  // - signed out: read once settled, then callers ask the client again;
  // - failed (the request and its 3 retries): the answer to every read until retryFailedStart()
  //   (the auth gate's Try again and its automatic rounds) or a forced refresh. How fast the
  //   console's code loads must not decide how many rounds an outage costs: the current user and
  //   the auth check may each come before or after that round has ended.
  let startup: Promise<AuthenticationInfo | null> | null = getInfo();
  let settled = false;
  let failed = false;
  startup.then(
    (info) => {
      settled = true;
      if (info) startup = null;
    },
    () => {
      settled = true;
      failed = true;
    },
  );
  const wrapped = client as IdentityClient;
  wrapped.getAuthenticationInfoOrNull = (forceRefresh?: boolean) => {
    if (forceRefresh) wrapped.retryFailedStart();
    if (!startup || forceRefresh) return getInfo(forceRefresh);
    const first = startup;
    if (settled && !failed) startup = null;
    return first;
  };
  wrapped.retryFailedStart = () => {
    if (failed) startup = null;
    failed = false;
  };

  const refresh = () => {
    client.getAuthenticationInfoOrNull().catch(() => {});
  };
  const timer = win.setInterval(refresh, BACKGROUND_REFRESH_MS);
  const destroy = client.destroy.bind(client);
  client.destroy = () => {
    win.clearInterval(timer);
    win.removeEventListener("unhandledrejection", markHandled);
    destroy();
  };
  return wrapped;
}
