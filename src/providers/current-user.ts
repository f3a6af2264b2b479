// The signed-in user's account (/v1/accounts/me) is needed by the layout, the access-control
// checks and several pages at once. One source deduplicates concurrent loads and keeps the
// answer for the query's stale time, so a page load costs one request.
import type { AuthenticationInfo } from "@propelauth/javascript";
import type { CurrentUser } from "./current-user-types";
import { type ApiFetch, httpError } from "./http";

export const CURRENT_USER_STALE_MS = 5 * 60 * 1000;
export const CURRENT_USER_GC_MS = 30 * 60 * 1000;

export type CurrentUserSource = {
  get: () => Promise<CurrentUser>;
  clear: () => void;
};

type AuthInfoReader = () => Promise<AuthenticationInfo | null>;

/** Fills defaults the console relies on and folds in the token's impersonation marker. */
export function normalizeCurrentUser(
  raw: Partial<CurrentUser>,
  auth: AuthenticationInfo | null,
): CurrentUser {
  const impersonating = raw.is_impersonating === true || Boolean(auth?.impersonatorUserId);
  return {
    email: raw.email ?? auth?.user.email ?? "",
    is_admin: raw.is_admin === true,
    is_impersonating: impersonating,
    // The operator API refuses impersonation sessions, so their console shows no operator area.
    is_operator: raw.is_operator === true && !impersonating,
    organization: raw.organization ?? null,
    workspace: raw.workspace ?? null,
    org_admin_emails: Array.isArray(raw.org_admin_emails) ? raw.org_admin_emails : [],
  };
}

export function createCurrentUserSource(
  apiFetch: ApiFetch,
  readAuthInfo: AuthInfoReader,
  ttlMs = CURRENT_USER_STALE_MS,
  now: () => number = Date.now,
): CurrentUserSource {
  let cached: { promise: Promise<CurrentUser>; at: number } | null = null;

  const load = async (): Promise<CurrentUser> => {
    const auth = await readAuthInfo();
    if (!auth) throw httpError(401, "You are not signed in.", "unauthenticated");
    const raw = await apiFetch<Partial<CurrentUser>>("/v1/accounts/me");
    return normalizeCurrentUser(raw ?? {}, auth);
  };

  return {
    get() {
      if (cached && now() - cached.at < ttlMs) return cached.promise;
      const entry: NonNullable<typeof cached> = { promise: load(), at: now() };
      cached = entry;
      // A failed load must not be served from the cache.
      entry.promise.catch(() => {
        if (cached === entry) cached = null;
      });
      return entry.promise;
    },
    clear() {
      cached = null;
    },
  };
}
