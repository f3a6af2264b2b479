import { sql } from "drizzle-orm";
import { bigserial, index, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, randomUuidKey, timestamptz, updatedAt } from "./columns";

// Product tables reference identity users and organizations by id only (no foreign keys across
// the identity boundary): the two services may run on separate databases in production.
export const workspaces = pgTable(
  "workspaces",
  {
    workspaceUuid: randomUuidKey("workspace_uuid"),
    organizationUuid: text("organization_uuid").notNull(),
    name: text("name").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [index("workspaces_org_idx").on(t.organizationUuid)],
);

export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceUuid: uuid("workspace_uuid")
      .notNull()
      .references(() => workspaces.workspaceUuid, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    email: text("email").notNull(),
    role: text("role").notNull().default("Member"),
    createdAt: createdAt(),
    /** Join order: timestamps can tie within one transaction; "first joined" must not. */
    joinSeq: bigserial("join_seq", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceUuid, t.userId] }),
    index("workspace_members_user_idx").on(t.userId),
  ],
);

/** The workspace a user chose as current in an organization (else the first one they joined). */
export const currentWorkspace = pgTable(
  "current_workspace",
  {
    userId: text("user_id").notNull(),
    organizationUuid: text("organization_uuid").notNull(),
    workspaceUuid: uuid("workspace_uuid")
      .notNull()
      .references(() => workspaces.workspaceUuid, { onDelete: "cascade" }),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationUuid] })],
);

/**
 * The audit trail: every administrative and security action, append-only (a trigger refuses
 * UPDATE, DELETE and TRUNCATE except the retention purge; see docs/audit-log.md).
 */
export const auditLog = pgTable(
  "audit_log",
  {
    /**
     * The order entries were recorded in, across every organization: internal only (reading an
     * organization's log newest first); never shown, since its gaps would tell one tenant how busy
     * the others are.
     */
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The entry's id as the API, the console and exports show it: random, so it reveals nothing. */
    entryUuid: uuid("audit_entry_uuid").notNull().unique().default(sql`gen_random_uuid()`),
    at: timestamptz("at").notNull().defaultNow(),
    /** null for a platform-wide target (an ingestion key for every organization). */
    organizationUuid: text("organization_uuid"),
    actorUserId: text("actor_user_id"),
    /** The actor's email when they acted. */
    actorEmail: text("actor_email"),
    /** The provider operator acting as `actor_user_id` through impersonation, if any. */
    impersonatorUserId: text("impersonator_user_id"),
    /** "console", "api_key" or "cli". */
    source: text("source").notNull(),
    /** One of contract/audit-log.ts's AUDIT_ACTIONS. */
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    targetLabel: text("target_label"),
    before: jsonb("before"),
    after: jsonb("after"),
  },
  (t) => [
    index("audit_log_org_at_idx").on(t.organizationUuid, t.at),
    index("audit_log_org_id_idx").on(t.organizationUuid, t.id),
    index("audit_log_org_target_idx").on(t.organizationUuid, t.targetType, t.targetId),
    index("audit_log_at_idx").on(t.at),
  ],
);
