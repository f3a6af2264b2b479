/**
 * The audit trail's vocabulary, shared by the server (which writes and serves it), the console
 * (its filters and labels) and the CSV export. Plain values, no zod: the console imports them at
 * run time. The list is closed: a write with any other action does not compile, and the API's
 * action filter accepts only these.
 */

/** Every action the audit log records, with the sentence the documentation and console show. */
export const AUDIT_ACTIONS = {
  "workspace.created": "A workspace was created.",
  "workspace.renamed": "A workspace was renamed.",
  "workspace.deleted": "A workspace was deleted (kept for billing history).",
  "workspace.restored": "A provider operator restored a deleted workspace.",
  "workspace.current_selected": "A user chose their current workspace.",
  "member.added": "A user was added to a workspace.",
  "member.removed": "A user was removed from a workspace.",
  "org_user.role_changed": "An organization user's role changed.",
  "org_user.removed": "A user was removed from the organization, or left it.",
  "organization.settings_changed": "The organization's name or settings changed.",
  "invitation.created": "A user was invited to the organization.",
  "invitation.revoked": "An open invitation was revoked.",
  "invitation.accepted": "An invited user joined the organization.",
  "api_key.created": "A personal or organization API key was created.",
  "api_key.deleted": "A personal or organization API key was deleted.",
  "ingest_key.created": "A provider operator created an ingestion key.",
  "ingest_key.revoked": "A provider operator revoked an ingestion key.",
  "sso.settings_changed": "The organization's SAML single sign-on settings changed.",
  "usage.adjustment_recorded": "A price adjustment (credit or charge) was recorded.",
  "usage.imported": "A provider operator imported a file of usage events (CSV or NDJSON).",
  "demo.seeded": "A provider operator seeded the demo organization or its usage.",
  "impersonation.started": "A provider operator started impersonating a user.",
  "impersonation.ended": "A provider operator stopped impersonating a user.",
  "budget.created": "A monthly budget was set for the organization or a workspace.",
  "budget.changed": "A budget's amount, alert thresholds or hard limit changed.",
  "budget.deleted": "A budget was removed.",
  "eval_run.reservation_released":
    "An administrator released an eval run's reservation: the run was finished and its hold freed.",
  "eval_run.outcomes_recorded":
    "An eval service reported a running eval run's outcomes (passed, failed, errored).",
  "eval_run.finished": "An eval service finished an eval run, with or without its outcomes.",
  "webhook_endpoint.created": "A webhook endpoint was added.",
  "webhook_endpoint.changed": "A webhook endpoint's URL, events or state changed.",
  "webhook_endpoint.secret_rotated": "A webhook endpoint's signing secret was replaced.",
  "webhook_endpoint.deleted": "A webhook endpoint was removed.",
  "org_user.joined_by_domain": "A user joined the organization through its verified email domain.",
  "organization.deleted": "The organization was deleted.",
  "user.password_changed": "A user changed or reset their password.",
  "user.mfa_enabled": "A user turned on two-factor authentication.",
  "user.mfa_disabled": "A user turned off two-factor authentication.",
  "user.backup_codes_regenerated": "A user made new two-factor backup codes.",
  "user.sessions_revoked":
    "A user's sessions were ended: the other ones on a password change, all on a reset.",
  "price_rule.created":
    "A provider operator set a price: a new price rule, which ends the open rule for the same dimensions.",
  "price_rule.rerated":
    "A new price re-rated the open cycle's usage (the events' totals before and after) and billed its difference for closed cycles as correction lines.",
  "operator.granted": "A user was made a provider operator.",
  "operator.revoked": "A user stopped being a provider operator.",
  "billing_cycle.opened": "A provider operator opened a billing cycle.",
  "billing_cycle.closed": "A provider operator closed the open billing cycle.",
  "payment.recorded": "A provider operator recorded a payment on a billing cycle.",
  "workspace_group.changed":
    "A provider operator created or changed a workspace group: its prepaid amount or its workspaces.",
  "event_partition.archived":
    "A provider operator archived a month of usage events (detached its partition).",
  "event_partition.restored": "A provider operator attached an archived month of usage events again.",
  "audit_log.purged": "A provider operator purged the audit log entries older than the retention period.",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditAction[];

/**
 * Where an action came from: console (a signed-in user: the console, the hosted identity pages or
 * a bearer access token), api_key (a personal or organization API key), cli (the server's command
 * line, or the backend API key it uses to reach a running server).
 */
export const AUDIT_SOURCES = ["console", "api_key", "cli"] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** What an action acted on. */
export const AUDIT_TARGET_TYPES = [
  "workspace",
  "workspace_member",
  "org_user",
  "organization",
  "invitation",
  "api_key",
  "ingest_key",
  "sso_connection",
  "usage_event",
  "user",
  "budget",
  "eval_run",
  "webhook_endpoint",
  "price_rule",
  "billing_cycle",
  "payment",
  "workspace_group",
  "event_partition",
  "audit_log",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** The most rows one page of GET /v1/audit-log answers. */
export const AUDIT_MAX_PAGE_SIZE = 200;
export const AUDIT_DEFAULT_PAGE_SIZE = 50;

/** Default retention of audit rows in days (AUDIT_RETENTION_DAYS). */
export const AUDIT_DEFAULT_RETENTION_DAYS = 400;
