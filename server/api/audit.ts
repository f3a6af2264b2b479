import type { Actor } from "../platform/audit";
import type { Principal } from "./principal";

/** The actor of an API call, for its audit rows. */
export function actorOf(p: Principal): Actor {
  return { userId: p.userId, email: p.email, via: p.via, impersonatorUserId: p.impersonatorUserId };
}
