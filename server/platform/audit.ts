import { auditLog } from "../db/schema";
import type { Tx } from "./database";

/** Who made a change: a signed-in user (bearer or API key) or a provider operator. */
export type Actor = {
  userId: string | null;
  email: string | null;
  via: "bearer" | "api_key" | "operator";
  impersonatorUserId?: string | null;
  /** Where an operator acted from, e.g. "cli" or "api". */
  source?: string;
};

export type AuditAction =
  | "workspace.create"
  | "workspace.rename"
  | "workspace.delete"
  | "workspace.restore"
  | "workspace.member_add"
  | "workspace.member_remove"
  | "workspace.current_set"
  | "usage.adjustment";

/**
 * Writes one audit_log row; call it inside the transaction of the change it records. Here, not in
 * api/, because the product API's workspace changes and metering's price adjustments both write it.
 */
export async function writeAudit(
  tx: Tx,
  entry: {
    organizationUuid: string;
    actor: Actor;
    action: AuditAction;
    targetType: "workspace" | "workspace_member" | "usage_event";
    targetId: string;
    details?: Record<string, unknown>;
  },
) {
  const details: Record<string, unknown> = { ...entry.details };
  if (entry.actor.source) details.source = entry.actor.source;
  await tx.insert(auditLog).values({
    organizationUuid: entry.organizationUuid,
    actorUserId: entry.actor.userId,
    actorEmail: entry.actor.email,
    actorVia: entry.actor.via,
    // The operator acting through impersonation, from the access token's impersonator_user_id.
    impersonatorUserId: entry.actor.impersonatorUserId ?? null,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details,
  });
}
