// Page sizes of lists whose first page the entry reads early (lib/landing-reads), here so that the
// entry needs none of the pages' code.

/** The Audit Log's rows per page. */
export const AUDIT_PAGE_SIZE = 25;

/** Users' members (and invitations) per page. */
export const USERS_PAGE_SIZE = 10;

/** Personal API keys per page. */
export const API_KEY_PAGE_SIZE = 10;
