// What the identity service answers for the organization's members and pending invitations, and
// how the Users page words them.
import dayjs from "dayjs";
import relativeTime from "dayjs/plugin/relativeTime";
import utc from "dayjs/plugin/utc";

dayjs.extend(relativeTime);
dayjs.extend(utc);

export type OrganizationMember = {
  user_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  /** Epoch seconds. */
  last_active_at: number;
  role: string;
  /** The roles the signed-in user may give this member; empty when they may not change it. */
  possible_roles: string[];
  can_be_deleted: boolean;
  is_enabled: boolean;
};

export type PendingInvitation = {
  email: string;
  role: string;
  /** Epoch seconds. */
  expires_at_seconds: number;
};

/** The roles an invitation may name, lowest first; the service refuses one above the inviter's. */
export const INVITE_ROLES = ["Member", "Admin", "Owner"] as const;

export { USERS_PAGE_SIZE } from "../../lib/page-sizes";

export function memberName(member: Pick<OrganizationMember, "first_name" | "last_name">): string {
  return [member.first_name, member.last_name].filter(Boolean).join(" ") || "-";
}

/** "3 hours ago", with the exact time (UTC) for a tooltip. */
export function lastActive(seconds: number, now = Date.now()): { relative: string; exact: string } {
  const at = dayjs.unix(seconds);
  return { relative: at.from(dayjs(now)), exact: exactTime(seconds) };
}

export function exactTime(seconds: number): string {
  return `${dayjs.unix(seconds).utc().format("MMM D, YYYY HH:mm")} UTC`;
}

/** The identity service's own words for a refused call (its user_facing_error). */
export function identityMessage(error: unknown): string {
  const e = error as { userFacingError?: unknown; message?: unknown } | null;
  if (typeof e?.userFacingError === "string" && e.userFacingError) return e.userFacingError;
  return typeof e?.message === "string" && e.message ? e.message : "An unexpected error has occurred";
}
