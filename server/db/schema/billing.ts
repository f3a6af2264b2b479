// Billing: an organization's billing cycles, the payments recorded on them, and the workspace
// groups that share a prepaid balance.
import { sql } from "drizzle-orm";
import { index, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { createdAt, dateText, micros, randomUuidKey, timestamptz } from "./columns";
import { workspaces } from "./product";

/** A billing period [start_date, end_date); end_date null is the current cycle. */
export const billingCycles = pgTable(
  "billing_cycles",
  {
    billingCycleUuid: randomUuidKey("billing_cycle_uuid"),
    organizationUuid: text("organization_uuid").notNull(),
    startDate: dateText("start_date").notNull(),
    endDate: dateText("end_date"),
    createdAt: createdAt(),
  },
  (t) => [index("billing_cycles_org_start_idx").on(t.organizationUuid, t.startDate.desc())],
);

export const payments = pgTable(
  "payments",
  {
    paymentUuid: randomUuidKey("payment_uuid"),
    organizationUuid: text("organization_uuid").notNull(),
    billingCycleUuid: uuid("billing_cycle_uuid")
      .notNull()
      .references(() => billingCycles.billingCycleUuid, { onDelete: "restrict" }),
    amountMicros: micros("amount_micros").notNull(),
    paidAt: timestamptz("paid_at").notNull().defaultNow(),
    note: text("note"),
  },
  (t) => [index("payments_org_cycle_idx").on(t.organizationUuid, t.billingCycleUuid)],
);

/** Workspaces that share a prepaid balance. */
export const workspaceGroups = pgTable(
  "workspace_groups",
  {
    workspaceGroupUuid: randomUuidKey("workspace_group_uuid"),
    organizationUuid: text("organization_uuid").notNull(),
    groupName: text("group_name").notNull(),
    prepaidMicros: micros("prepaid_micros").notNull().default(sql`0`),
    createdAt: createdAt(),
  },
  (t) => [unique("workspace_groups_org_name_key").on(t.organizationUuid, t.groupName)],
);

export const workspaceGroupMembers = pgTable(
  "workspace_group_members",
  {
    workspaceGroupUuid: uuid("workspace_group_uuid")
      .notNull()
      .references(() => workspaceGroups.workspaceGroupUuid, { onDelete: "cascade" }),
    workspaceUuid: uuid("workspace_uuid")
      .notNull()
      .references(() => workspaces.workspaceUuid, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceGroupUuid, t.workspaceUuid] }),
    index("workspace_group_members_workspace_idx").on(t.workspaceUuid),
  ],
);
