// Page sizes of the lists whose pages share them with their helpers (lib/api-keys, the users table).

/** The Audit Log's rows per page. */
export const AUDIT_PAGE_SIZE = 25;

/** Users' members (and invitations) per page. */
export const USERS_PAGE_SIZE = 10;

/** Personal API keys per page. */
export const API_KEY_PAGE_SIZE = 10;
