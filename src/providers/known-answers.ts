// The answers the shell's own queries would get, when they are already known: the session check,
// the current user and the access checks all follow from the current user, which the entry loads
// before the console's code runs (main.tsx). Each of those queries would otherwise answer only
// after a round trip through react-query (a task, then a render) after the one before it: the
// session gate, then the layout's user and sider entries, then the route's access check, then the
// page, four rounds of rendering before a page's first row. Seeded (providers/first-answers), the
// gate, the layout, the guard and the page render in one pass. The answers are the providers' own:
// the access-control provider's rule for that user, and the auth provider's check, which answers
// "authenticated" whenever the identity client holds a session, as it does once the user loaded.
import type { QueryKey } from "@tanstack/react-query";
import { accessAnswer } from "./access-control-provider";
import type { CurrentUserSource } from "./current-user";

/** What a query would resolve to, and when that was known. */
export type KnownAnswer = { data: unknown; at: number };

export type KnownAnswers = (key: QueryKey) => KnownAnswer | undefined;

export function knownAnswers(currentUser: Pick<CurrentUserSource, "peek">): KnownAnswers {
  return (key) => {
    const [scope, name, action] = key;
    if (scope !== "auth" && scope !== "access") return undefined;
    const known = currentUser.peek();
    if (!known) return undefined;
    const { user, at } = known;
    // Refine's keys: ["auth", "check"], ["auth", "identity"], ["access", resource, action, params?].
    if (scope === "auth" && name === "check") return { data: { authenticated: true }, at };
    if (scope === "auth" && name === "identity") return { data: user, at };
    if (scope === "access" && typeof name === "string" && typeof action === "string")
      return { data: accessAnswer(name, action, user), at };
    return undefined;
  };
}
