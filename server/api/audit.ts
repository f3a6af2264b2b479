import type { Actor } from "../platform/audit";
import type { Principal } from "./principal";

/** The actor of an API call, for its audit rows: a bearer token is a signed-in user (console). */
export function actorOf(p: Principal): Actor {
  return {
    userId: p.userId,
    email: p.email,
    source: p.via === "api_key" ? "api_key" : "console",
    impersonatorUserId: p.impersonatorUserId,
  };
}
