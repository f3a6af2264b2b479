// Shared SQL pieces of the usage queries: dimensions, the spec's filter semantics, search, joins.
import { and, type Column, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { usageDaily, usageEvents, workspaces } from "../db/schema";
import { type Cycle, eventsInCycle } from "./cycles";
import type { UsageFilters } from "./filters";

export const UNKNOWN_WORKSPACE = "Unknown Workspace";
export const NO_WORKSPACE = "No Workspace";

export type Dims = {
  workspaceUuid: Column;
  evalType: Column;
  operation: Column;
  modality: Column;
  isJailbreak: Column;
  hasGroundTruth: Column;
};

export const dailyDims: Dims = usageDaily;
export const eventDims: Dims = usageEvents;

/** A set filter in SQL: no choice, or the row has no value, or its value is chosen (see keepsRecord). */
export function setFilter(col: Column, chosen: string[], emptyIsNull: boolean): SQL | undefined {
  if (!chosen.length) return undefined;
  return or(emptyIsNull ? isNull(col) : eq(col, ""), inArray(col, chosen));
}

/** The dimension filters (search aside) as a WHERE condition; mirrors keepsRecord. */
export function dimensionFilter(d: Dims, f: UsageFilters): SQL | undefined {
  return and(
    setFilter(d.workspaceUuid, f.workspaceUuids, true),
    setFilter(d.evalType, f.evalTypes, false),
    setFilter(d.operation, f.operations, false),
    setFilter(d.modality, f.modalities, false),
    f.groundTruth ? eq(d.hasGroundTruth, f.groundTruth === "with") : undefined,
    f.jailbreak ? eq(d.isJailbreak, f.jailbreak === "only") : undefined,
  );
}

export const workspaceName = sql<string>`coalesce(${workspaces.name}, ${UNKNOWN_WORKSPACE})`;
export const costText = sql`trim(trailing '.' from trim(trailing '0' from (${usageEvents.costMicros}::numeric / 1000000)::text))`;

/** Case-insensitive substring match over the record's text and number columns. */
export function searchFilter(search: string | null): SQL | undefined {
  if (!search) return undefined;
  const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const columns = [
    usageEvents.name,
    usageEvents.operation,
    usageEvents.evalType,
    usageEvents.modality,
    usageEvents.createdBy,
    usageEvents.evalUuid,
    usageEvents.evalRunUuid,
    usageEvents.notes,
    usageEvents.ruleMetric,
  ].map((c) => sql`coalesce(${c}, '') ilike ${pattern}`);
  return or(
    ...columns,
    sql`${workspaceName} ilike ${pattern}`,
    sql`${usageEvents.quantity}::text ilike ${pattern}`,
    sql`${costText} ilike ${pattern}`,
  );
}

export const eventWhere = (cycle: Cycle, f: UsageFilters) =>
  and(eventsInCycle(cycle), dimensionFilter(eventDims, f), searchFilter(f.search));

export const workspaceJoin = and(
  eq(workspaces.workspaceUuid, usageEvents.workspaceUuid),
  eq(workspaces.organizationUuid, usageEvents.organizationUuid),
);

// ---- records ---------------------------------------------------------------------------------
