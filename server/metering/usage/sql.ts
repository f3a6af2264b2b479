// Shared SQL pieces of the usage queries: dimensions, the spec's filter semantics, search, joins.
import { and, type Column, eq, inArray, isNull, notInArray, or, type SQL, sql } from "drizzle-orm";
import { ASCII_LOWER, ASCII_UPPER, evalTypeGroup, NAMED_EVAL_TYPES } from "../../../contract/eval-types";
import {
  searchDocument,
  searchedCost,
  usageDaily,
  usageDailyCoarse,
  usageDailyMid,
  usageEvents,
  workspaces,
} from "../../db/schema";
import type { Db } from "../../platform/database";
import { containing } from "../../platform/like-pattern";
import { type Cycle, eventsInCycle } from "../billing/cycles";
import { readsRawEvents, type UsageFilters } from "./filters";

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

/** An eval type column's group, as evalTypeGroup computes it (ASCII case folded, named types mapped). */
export function evalTypeGroupOf(col: Column): SQL {
  const named = [...NAMED_EVAL_TYPES].map(([raw, group]) => sql`when ${raw} then ${group}`);
  return sql`(case translate(${col}, ${ASCII_UPPER}, ${ASCII_LOWER}) ${sql.join(named, sql` `)} else ${col} end)`;
}

/** The raw values (lower-case) of the named eval types. */
const NAMED_RAW = [...NAMED_EVAL_TYPES.keys()];

/**
 * The eval type filter: the row has no eval type, or its group is chosen (as evalTypeGroupOf(col) in
 * the chosen groups), written so that no row computes its group. A chosen group is its raw values:
 * a named group its lower-case raw values (accuracy: accuracy, hallucination), any other group
 * the value itself (its lower-case form is no named value, so nothing else maps to it). Those are
 * a plain `in (…)`; only rows whose eval type is neither one of them nor a lower-case named value
 * (other spellings like "Hallucination", and unnamed types) fold their case to be compared with
 * the chosen named values.
 */
export function evalTypeFilter(col: Column, chosen: string[]): SQL | undefined {
  if (!chosen.length) return undefined;
  const groups = new Set(chosen.map(evalTypeGroup));
  const named = NAMED_RAW.filter((raw) => groups.has(NAMED_EVAL_TYPES.get(raw) as string));
  const namedGroups = new Set(NAMED_EVAL_TYPES.values());
  const plain = [...new Set(["", ...named, ...[...groups].filter((g) => !namedGroups.has(g))])];
  if (!named.length) return inArray(col, plain);
  return or(
    inArray(col, plain),
    and(
      notInArray(col, [...new Set([...plain, ...NAMED_RAW])]),
      inArray(sql`translate(${col}, ${ASCII_UPPER}, ${ASCII_LOWER})`, named),
    ),
  );
}

/**
 * The dimension filters (search aside) as a WHERE condition over the dimensions `d` has; mirrors
 * keepsRecord. A rollup without some dimensions is only read for filter sets that leave them unset
 * (usesMidRollup, usesCoarseRollup).
 */
export function dimensionFilter(
  d: Pick<Dims, "workspaceUuid" | "evalType" | "operation"> & Partial<Dims>,
  f: UsageFilters,
): SQL | undefined {
  return and(
    setFilter(d.workspaceUuid, f.workspaceUuids, true),
    evalTypeFilter(d.evalType, f.evalTypes),
    setFilter(d.operation, f.operations, false),
    d.modality ? setFilter(d.modality, f.modalities, false) : undefined,
    f.groundTruth && d.hasGroundTruth ? eq(d.hasGroundTruth, f.groundTruth === "with") : undefined,
    f.jailbreak && d.isJailbreak ? eq(d.isJailbreak, f.jailbreak === "only") : undefined,
  );
}

/**
 * Whether the coarse rollup (usage_daily_coarse: no modality, jailbreak or ground truth) can answer
 * for a filter set: none of those three filters, and no search (which reads raw events).
 */
export const usesCoarseRollup = (f: UsageFilters) =>
  !readsRawEvents(f) && f.modalities.length === 0 && f.groundTruth === null && f.jailbreak === null;

/**
 * Whether the middle rollup (usage_daily_mid: no modality) can answer for a filter set: no
 * modality filter, and nothing that reads raw events.
 */
export const usesMidRollup = (f: UsageFilters) => !readsRawEvents(f) && f.modalities.length === 0;

/** dimensionFilter over usage_daily_mid, for the filter sets usesMidRollup accepts. */
export const midFilter = (f: UsageFilters) => dimensionFilter(usageDailyMid, f);

/** dimensionFilter over usage_daily_coarse, for the filter sets usesCoarseRollup accepts. */
export const coarseFilter = (f: UsageFilters) => dimensionFilter(usageDailyCoarse, f);

export const workspaceName = sql<string>`coalesce(${workspaces.name}, ${UNKNOWN_WORKSPACE})`;
export const costText = searchedCost(usageEvents.costMicros);

/**
 * Which workspace names a search text matches, resolved before the events are read: the name
 * lives in workspaces, so matching it per event would keep the event search from using its index.
 * `unknown`: "Unknown Workspace" (events whose workspace is unset or not one of the organization's)
 * matches too.
 */
export type WorkspaceMatches = { uuids: string[]; unknown: boolean };

export async function workspaceMatches(
  db: Db,
  organizationUuid: string,
  search: string | null,
): Promise<WorkspaceMatches | null> {
  if (!search) return null;
  const pattern = containing(search);
  // One row per matching workspace, or one row with no workspace; each says whether the
  // "Unknown Workspace" name matches (compared by the database, as the rest of the search is).
  const rows = await db
    .select({ uuid: workspaces.workspaceUuid, unknown: sql<boolean>`${UNKNOWN_WORKSPACE} ilike ${pattern}` })
    .from(sql`(select 1) as one`)
    .leftJoin(
      workspaces,
      and(eq(workspaces.organizationUuid, organizationUuid), sql`${workspaces.name} ilike ${pattern}`),
    );
  return {
    uuids: rows.flatMap((r) => (r.uuid ? [r.uuid] : [])),
    unknown: rows[0]?.unknown === true,
  };
}

/**
 * Case-insensitive substring match over the record's text and number columns and its workspace
 * name. The event's columns are matched through the trigram-indexed search document (a necessary
 * condition the index answers) and then column by column, so the result is exactly the per-column
 * match; the workspace name through the uuids of the workspaces it matches (see workspaceMatches).
 */
export function searchFilter(search: string | null, matches: WorkspaceMatches | null): SQL | undefined {
  if (!search) return undefined;
  const pattern = containing(search);
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
  const inEvent = and(
    sql`(${searchDocument(usageEvents)}) ilike ${pattern}`,
    or(...columns, sql`${usageEvents.quantity}::text ilike ${pattern}`, sql`${costText} ilike ${pattern}`),
  );
  const uuids = matches?.uuids ?? [];
  return or(
    inEvent,
    uuids.length ? inArray(usageEvents.workspaceUuid, uuids) : undefined,
    matches?.unknown
      ? or(
          isNull(usageEvents.workspaceUuid),
          sql`not exists (select 1 from ${workspaces} where ${workspaceJoin})`,
        )
      : undefined,
  );
}

/** The events of the cycle kept by the filters and the search (matches: see workspaceMatches). */
export const eventWhere = (cycle: Cycle, f: UsageFilters, matches: WorkspaceMatches | null) =>
  and(
    eventsInCycle(cycle),
    f.evalRun ? eq(usageEvents.evalRunUuid, f.evalRun) : undefined,
    f.priceRule ? eq(usageEvents.priceRuleUuid, f.priceRule) : undefined,
    dimensionFilter(eventDims, f),
    searchFilter(f.search, matches),
  );

export const workspaceJoin = and(
  eq(workspaces.workspaceUuid, usageEvents.workspaceUuid),
  eq(workspaces.organizationUuid, usageEvents.organizationUuid),
);
