// Billing: an organization's billing cycles, the payments recorded on them, and the workspace
// groups that share a prepaid balance.
import { sql } from "drizzle-orm";
import { date, index, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { micros } from "./metering";
import { workspaces } from "./product";

/** A billing period [start_date, end_date); end_date null is the current cycle. */
export const billingCycles = pgTable(
  "billing_cycles",
  {
    billingCycleUuid: uuid("billing_cycle_uuid").primaryKey().default(sql`gen_random_uuid()`),
    organizationUuid: text("organization_uuid").notNull(),
    startDate: date("start_date", { mode: "string" }).notNull(),
    endDate: date("end_date", { mode: "string" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("billing_cycles_org_start_idx").on(t.organizationUuid, t.startDate.desc())],
);

export const payments = pgTable(
  "payments",
  {
    paymentUuid: uuid("payment_uuid").primaryKey().default(sql`gen_random_uuid()`),
    organizationUuid: text("organization_uuid").notNull(),
    billingCycleUuid: uuid("billing_cycle_uuid")
      .notNull()
      .references(() => billingCycles.billingCycleUuid, { onDelete: "restrict" }),
    amountMicros: micros("amount_micros").notNull(),
    paidAt: timestamp("paid_at", { withTimezone: true }).notNull().defaultNow(),
    note: text("note"),
  },
  (t) => [index("payments_org_cycle_idx").on(t.organizationUuid, t.billingCycleUuid)],
);

/** Workspaces that share a prepaid balance. */
export const workspaceGroups = pgTable(
  "workspace_groups",
  {
    workspaceGroupUuid: uuid("workspace_group_uuid").primaryKey().default(sql`gen_random_uuid()`),
    organizationUuid: text("organization_uuid").notNull(),
    groupName: text("group_name").notNull(),
    prepaidMicros: micros("prepaid_micros").notNull().default(sql`0`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
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
