import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { micros, timestamptz } from "./columns";

/**
 * The eval runs an eval service started through POST /v1/eval-runs: so a run shows (with its name,
 * workspace and who started it) before its first usage event arrives. A run's cost is never stored
 * here: it is read from the usage events carrying its id (usage_events.eval_run_uuid, which is
 * text: events may name runs that were never started here).
 */
export const evalRuns = pgTable(
  "eval_runs",
  {
    evalRunUuid: text("eval_run_uuid").primaryKey().default(sql`gen_random_uuid()::text`),
    organizationUuid: text("organization_uuid").notNull(),
    workspaceUuid: uuid("workspace_uuid").notNull(),
    name: text("name"),
    evalType: text("eval_type"),
    startedByUserId: text("started_by_user_id"),
    startedByEmail: text("started_by_email"),
    /** The API key (its id) the run was started with; null when started with a bearer token. */
    startedByApiKeyId: text("started_by_api_key_id"),
    startedAt: timestamptz("started_at").notNull().defaultNow(),
    /**
     * The spend reserved at the start against the hard limits that cover the run (its estimate,
     * micro-dollars); null when started without one. Held, less what the run has spent, until the
     * run finishes or idles past the reservation timeout (server/metering/budgets/reservations.ts).
     */
    reservedMicros: micros("reserved_micros"),
    /** When POST /v1/eval-runs/{id}/finish released the reservation; null while running. */
    finishedAt: timestamptz("finished_at"),
    /**
     * The run's test case outcomes as the eval service last reported them (PUT …/outcomes, or the
     * finish): stored when reported, never inferred from its usage; null until reported. Whole
     * numbers up to 1e9 each (bigint: their sums over many runs stay exact).
     */
    outcomesPassed: bigint("outcomes_passed", { mode: "number" }),
    outcomesFailed: bigint("outcomes_failed", { mode: "number" }),
    outcomesErrored: bigint("outcomes_errored", { mode: "number" }),
    outcomesReportedAt: timestamptz("outcomes_reported_at"),
  },
  (t) => [
    index("eval_runs_org_started_idx").on(t.organizationUuid, t.startedAt),
    // The open reservations an admission sums: few rows however many runs an organization has had.
    index("eval_runs_org_reserved_idx")
      .on(t.organizationUuid)
      .where(sql`${t.reservedMicros} is not null and ${t.finishedAt} is null`),
  ],
);
