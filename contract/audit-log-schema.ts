/**
 * GET /v1/audit-log's answer: the server validates and documents it with these schemas; the
 * console reads the same shapes as types only (`import type`), so zod stays out of its bundle.
 */
import { z } from "zod";
import { AUDIT_ACTION_NAMES, AUDIT_SOURCES, AUDIT_TARGET_TYPES } from "./audit-log";

const snapshot = z.record(z.string(), z.unknown()).nullable().meta({
  description:
    "The target's relevant fields before or after the action; never key material, hashes, passwords or tokens.",
});

export const AuditEntrySchema = z
  .object({
    audit_entry_id: z.uuid().meta({
      description:
        "The entry's id: a random UUID, which says nothing of when it was written or of other organizations' entries.",
    }),
    at: z.iso.datetime(),
    action: z.enum(AUDIT_ACTION_NAMES),
    actor_user_id: z.string().nullable().meta({ description: "null for the command line." }),
    actor_email: z.string().nullable().meta({ description: "The actor's email when they acted." }),
    impersonator_user_id: z.string().nullable().meta({
      description: "The provider operator acting as the actor, when the session was an impersonation.",
    }),
    source: z.enum(AUDIT_SOURCES),
    target_type: z.enum(AUDIT_TARGET_TYPES),
    target_id: z.string(),
    target_label: z
      .string()
      .nullable()
      .meta({ description: "A name for people: an email, a workspace name." }),
    before: snapshot,
    after: snapshot,
  })
  .meta({ id: "AuditEntry" });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditLogPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema).meta({ description: "Newest first." }),
    total: z.int().meta({ description: "Entries matching the filters." }),
    page: z.int(),
    page_size: z.int(),
  })
  .meta({ id: "AuditLogPage" });
export type AuditLogPage = z.infer<typeof AuditLogPageSchema>;
