import { applySetCookies, parseSetCookieHeader } from "better-auth/cookies";
import type { Auth } from "./auth";

// better-auth starts a session on some answers where we do not want one yet (sign-up before the
// email is confirmed; magic-link, social sign-in of a user with a second factor). These act as
// the browser would with the answer's cookies, through better-auth's public API.

/** Request headers carrying the cookies an answer set, as the browser would send them next. */
function sentBack(setCookies: string[]): Headers {
  const headers = new Headers();
  applySetCookies(headers, setCookies);
  return headers;
}

/** The user of the session an answer's Set-Cookie started, or null when it started none. */
export async function startedSessionUser(auth: Auth, setCookies: string[]) {
  const found = await auth.api.getSession({ headers: sentBack(setCookies), query: { disableRefresh: true } });
  return found?.user ?? null;
}

/**
 * Ends the session an answer's Set-Cookie started (if any). Returns the answer's other cookies
 * followed by the ones that clear the session's, for when the answer still goes to the browser.
 */
export async function endStartedSession(auth: Auth, setCookies: string[]): Promise<string[]> {
  const { headers } = await auth.api.signOut({
    headers: sentBack(setCookies),
    body: { disableRedirect: true },
    returnHeaders: true,
  });
  const clearing = headers.getSetCookie();
  const cleared = new Set(clearing.flatMap((c) => [...parseSetCookieHeader(c).keys()]));
  const kept = setCookies.filter((c) => ![...parseSetCookieHeader(c).keys()].some((n) => cleared.has(n)));
  return [...kept, ...clearing];
}
