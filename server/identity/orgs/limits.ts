// Limits of the organization calls. DEFAULT_MAX_USERS is the one member limit for organizations
// that set no maxUsers: our own checks and better-auth's membershipLimit (service.ts) both use it.

/** Organizations one user may belong to (create or join beyond this: user_max_orgs_limit_exceeded). */
export const MAX_ORGS_PER_USER = 20;
export const DEFAULT_MAX_USERS = 1000;
/** Invitation emails per organization and window, so an account can't be used to spam. */
export const INVITES_PER_ORG = { limit: 50, windowSeconds: 3600 };
export const inviteLimitKey = (orgId: string) => `org-invite:${orgId}`;
/** How long an invitation link works. */
export const INVITATION_TTL_SECONDS = 60 * 60 * 24 * 7;
