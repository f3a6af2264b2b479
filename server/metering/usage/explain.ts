/**
 * "Explain this charge": one node of a billing cycle's cost — the cycle's total, a workspace group,
 * a workspace (or the usage without one), an eval run (or a workspace's usage without one), an
 * event — with its lines per price rule and adjustment and its parts one level down. The cycle, the
 * groups and the workspaces take their totals from the daily rollup, as the billing cycle's
 * total_cost and group totals do, so the top of the drill-down is the figure on the page; every
 * part's cost is the total of the node it opens, and a node's parts add up to its total exactly.
 */
import { and, eq } from "drizzle-orm";
import { capitalizeWords, evalTypeLabel } from "../../../contract/eval-types";
import { formatUsdExact } from "../../../contract/money";
import {
  type ExplainLevel,
  type ExplainLine,
  type ExplainNode,
  PARTS_LEVEL,
  type UsageExplain,
} from "../../../contract/usage-explain";
import { priceRules, usageEvents, workspaces } from "../../db/schema";
import type { Db } from "../../platform/database";
import { DEFAULT_GROUP, workspaceGroupsOf } from "../billing/cycle-totals";
import { type Cycle, eventsInCycle } from "../billing/cycles";
import type { WorkspaceNames } from "./cache";
import { linesOf, pageOf, partOrder, rowSums, rowsByKey, type UsageRow } from "./explain-lines";
import { readScope } from "./explain-sql";
import { priceRuleJoin, type RecordRow, recordColumns } from "./records";
import { NO_WORKSPACE, UNKNOWN_WORKSPACE, workspaceJoin } from "./sql";

/** A node the organization has no such usage for (an unknown group, run or event). */
export class ExplainNotFound extends Error {}

export type ExplainRequest = {
  level: ExplainLevel;
  group?: string;
  workspaceUuid?: string;
  evalRunUuid?: string;
  usageEventUuid?: string;
  page: number;
  pageSize: number;
};

export const NO_EVAL_RUN = "No eval run";
export const UNITEMIZED = "Archived events (not itemized)";
/** The page's label of a workspace group (spec §2: the group named default is labelled Other). */
export const groupLabel = (name: string) => (name === DEFAULT_GROUP ? "Other" : name);

const node = (level: ExplainLevel, over: Partial<ExplainNode> = {}): ExplainNode => ({
  level,
  group: null,
  workspace_uuid: null,
  eval_run_uuid: null,
  usage_event_uuid: null,
  ...over,
});

type Part = {
  key: string | null;
  label: string;
  description: string | null;
  node: ExplainNode | null;
  events: number;
  costMicros: bigint;
  occurredAt: string | null;
  lines: ExplainLine[];
};

type Crumb = { label: string; node: ExplainNode };

/** What every level needs: the organization's workspace names and groups. */
async function contextOf(db: Db, cycle: Cycle, namesOf: WorkspaceNames) {
  const [names, groups] = await Promise.all([
    namesOf(cycle.organizationUuid),
    workspaceGroupsOf(db, cycle.organizationUuid),
  ]);
  const wsLabel = (ws: string | null) => (ws === null ? NO_WORKSPACE : (names.get(ws) ?? UNKNOWN_WORKSPACE));
  const groupOf = (ws: string) => groups.groupOfWorkspace.get(ws) ?? DEFAULT_GROUP;
  const top: Crumb = { label: "Total Cost", node: node("cycle") };
  const wsPath = (ws: string | null): Crumb[] => {
    const here = { label: wsLabel(ws), node: node("workspace", { workspace_uuid: ws }) };
    if (ws === null) return [top, here];
    const g = groupOf(ws);
    return [top, { label: groupLabel(g), node: node("group", { group: g }) }, here];
  };
  const runPath = (ws: string | null, run: string | null): Crumb[] => [
    ...wsPath(ws),
    { label: run ?? NO_EVAL_RUN, node: node("eval_run", { workspace_uuid: ws, eval_run_uuid: run }) },
  ];
  return { names, groups, wsLabel, groupOf, top, wsPath, runPath };
}
type Context = Awaited<ReturnType<typeof contextOf>>;

/** A node's answer from its parts (in order), lines and total. */
function answer(
  cycle: Cycle,
  path: Crumb[],
  req: ExplainRequest,
  body: { totalMicros: bigint; events: number; lines: ExplainLine[]; parts: Part[] },
): UsageExplain {
  const here = path[path.length - 1] as Crumb;
  const { shown, earlier, later } = pageOf(body.parts, req.page, req.pageSize);
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    node: here.node,
    label: here.label,
    path,
    total: formatUsdExact(body.totalMicros),
    events: body.events,
    lines: body.lines,
    parts_level: PARTS_LEVEL[here.node.level],
    parts: shown.map(partJson),
    parts_count: body.parts.length,
    earlier,
    later,
    page: req.page,
    page_size: req.pageSize,
  };
}

const partJson = (p: Part) => ({
  label: p.label,
  description: p.description,
  node: p.node,
  events: p.events,
  cost: formatUsdExact(p.costMicros),
  occurred_at: p.occurredAt,
  lines: p.lines,
});

/** The cycle (parts: groups, then No Workspace) or one group (parts: its workspaces). */
async function cycleOrGroup(db: Db, cycle: Cycle, ctx: Context, req: ExplainRequest) {
  const group = req.level === "group" ? (req.group ?? "") : null;
  const known = [...ctx.groups.groups.map((g) => g.name), DEFAULT_GROUP];
  if (group !== null && !known.includes(group)) throw new ExplainNotFound(`No workspace group "${group}".`);
  const { rows, rollup } = await readScope(db, cycle, { key: "workspace" }, { rollup: true });
  const byKey = rowsByKey(rows);
  const keys = new Set<string | null>([...byKey.keys(), ...rollup.keys()]);
  // Each workspace's cost is the bill's (the rollup); its events' lines, plus what is archived.
  const wsParts: Part[] = [...keys].map((ws) => {
    const own = byKey.get(ws) ?? [];
    const sums = rowSums(own);
    const cost = rollup.get(ws) ?? 0n;
    return {
      key: ws,
      label: ctx.wsLabel(ws),
      description: null,
      node: node("workspace", { workspace_uuid: ws }),
      events: sums.events,
      costMicros: cost,
      occurredAt: null,
      lines: linesOf(own, cost - sums.costMicros),
    };
  });
  const rowsOf = (list: Part[]) => list.flatMap((p) => byKey.get(p.key) ?? []);
  const merge = (list: Part[], over: Pick<Part, "key" | "label" | "node">): Part => {
    const own = rowsOf(list);
    const cost = list.reduce((t, p) => t + p.costMicros, 0n);
    return {
      ...over,
      description: null,
      events: list.reduce((t, p) => t + p.events, 0),
      costMicros: cost,
      occurredAt: null,
      lines: linesOf(own, cost - rowSums(own).costMicros),
    };
  };
  const inGroup = (g: string) => wsParts.filter((p) => p.key !== null && ctx.groupOf(p.key) === g);
  if (group !== null) {
    const parts = inGroup(group).sort(partOrder);
    const whole = merge(parts, { key: group, label: groupLabel(group), node: null });
    const path = [ctx.top, { label: groupLabel(group), node: node("group", { group }) }];
    return answer(cycle, path, req, { ...sumsOf(whole), parts });
  }
  // The groups in the totals strip's order (by name, "default" last), then the usage without a workspace.
  const names = [...ctx.groups.groups.map((g) => g.name).filter((n) => n !== DEFAULT_GROUP), DEFAULT_GROUP];
  const parts = names.map((g) =>
    merge(inGroup(g), { key: g, label: groupLabel(g), node: node("group", { group: g }) }),
  );
  const none = wsParts.filter((p) => p.key === null);
  if (none.length) parts.push({ ...(none[0] as Part), label: NO_WORKSPACE });
  const whole = merge(wsParts, { key: null, label: "Total Cost", node: null });
  return answer(cycle, [ctx.top], req, { ...sumsOf(whole), parts });
}

const sumsOf = (p: Part) => ({ totalMicros: p.costMicros, events: p.events, lines: p.lines });

/** One workspace, or the usage without one (parts: its eval runs, and its usage without a run). */
async function workspace(db: Db, cycle: Cycle, ctx: Context, req: ExplainRequest) {
  const ws = req.workspaceUuid ?? null;
  const scope = { key: "eval_run" as const, workspace: ws };
  const { rows, rollup, names } = await readScope(db, cycle, scope, { rollup: true });
  const total = rollup.get(ws) ?? 0n;
  if (ws !== null && !ctx.names.has(ws) && rows.length === 0 && total === 0n)
    throw new ExplainNotFound("No such workspace in the organization.");
  const parts: Part[] = [...rowsByKey(rows)].map(([run, own]) => {
    const sums = rowSums(own);
    return {
      key: run,
      label: run ?? NO_EVAL_RUN,
      description: names.get(run) ?? null,
      node: node("eval_run", { workspace_uuid: ws, eval_run_uuid: run }),
      events: sums.events,
      costMicros: sums.costMicros,
      occurredAt: null,
      lines: linesOf(own),
    };
  });
  const itemized = rowSums(rows);
  // The bill counts usage whose events are archived: one part says so, so the parts still add up.
  const unitemized = total - itemized.costMicros;
  if (unitemized !== 0n)
    parts.push({
      key: "~unitemized",
      label: UNITEMIZED,
      description: null,
      node: null,
      events: 0,
      costMicros: unitemized,
      occurredAt: null,
      lines: linesOf([], unitemized),
    });
  parts.sort(partOrder);
  return answer(cycle, ctx.wsPath(ws), req, {
    totalMicros: total,
    events: itemized.events,
    lines: linesOf(rows, unitemized),
    parts,
  });
}

const eventLabel = (name: string | null) => name ?? "Usage event";
const eventDescription = (operation: string, evalType: string) =>
  `${capitalizeWords(operation)} · ${evalTypeLabel(evalType)}`;

/** One eval run of a workspace, or the workspace's usage without a run (parts: its events, paged). */
async function evalRun(db: Db, cycle: Cycle, ctx: Context, req: ExplainRequest) {
  const ws = req.workspaceUuid ?? null;
  const run = req.evalRunUuid ?? null;
  const offset = (req.page - 1) * req.pageSize;
  const scope = { key: "none" as const, workspace: ws, evalRun: run };
  const { rows, page } = await readScope(db, cycle, scope, {
    rollup: false,
    page: { offset, limit: req.pageSize },
  });
  if (rows.length === 0)
    throw new ExplainNotFound("No usage of that eval run in this workspace and billing cycle.");
  const { events, costMicros } = rowSums(rows);
  const shown = page.map((e) => ({
    label: eventLabel(e.name),
    description: eventDescription(e.operation, e.evalType),
    node: node("event", { usage_event_uuid: e.eventUuid }),
    events: 1,
    cost: formatUsdExact(e.costMicros),
    occurred_at: e.occurredAt,
    lines: linesOf([e]),
  }));
  // The events are paged in SQL: the running sum of the first one shown gives the earlier pages'.
  const first = page[0];
  const earlierCost = first ? first.runningMicros - first.costMicros : costMicros;
  const earlierParts = first ? first.rn - 1 : Math.min(offset, events);
  const pageCost = page.reduce((t, e) => t + e.costMicros, 0n);
  const path = ctx.runPath(ws, run);
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    node: (path[path.length - 1] as Crumb).node,
    label: (path[path.length - 1] as Crumb).label,
    path,
    total: formatUsdExact(costMicros),
    events,
    lines: linesOf(rows),
    parts_level: PARTS_LEVEL.eval_run,
    parts: shown,
    parts_count: events,
    earlier: { parts: earlierParts, cost: formatUsdExact(earlierCost) },
    later: {
      parts: events - earlierParts - page.length,
      cost: formatUsdExact(costMicros - earlierCost - pageCost),
    },
    page: req.page,
    page_size: req.pageSize,
  } satisfies UsageExplain;
}

/** One event: its line (the rule's arithmetic, or the adjustment with its notes). */
async function oneEvent(db: Db, cycle: Cycle, ctx: Context, req: ExplainRequest) {
  const [row] = (await db
    .select(recordColumns)
    .from(usageEvents)
    .leftJoin(workspaces, workspaceJoin)
    .leftJoin(priceRules, priceRuleJoin)
    .where(and(eventsInCycle(cycle), eq(usageEvents.usageEventUuid, req.usageEventUuid ?? "")))
    .limit(1)) as RecordRow[];
  if (!row) throw new ExplainNotFound("No such usage event in this billing cycle.");
  const usage: UsageRow = {
    key: row.usageEventUuid,
    ruleUuid: row.priceRuleUuid,
    ruleVersion: row.priceRuleVersion,
    unitPriceMicros: row.unitPriceMicros,
    adjustment: row.adjustment,
    eventUuid: row.usageEventUuid,
    events: 1,
    quantity: row.quantity,
    costMicros: row.costMicros,
    notes: row.notes,
    occurredAt: row.occurredAt.toISOString(),
  };
  const path = [
    ...ctx.runPath(row.workspaceUuid, row.evalRunUuid),
    { label: eventLabel(row.name), node: node("event", { usage_event_uuid: row.usageEventUuid }) },
  ];
  return answer(cycle, path, req, {
    totalMicros: row.costMicros,
    events: 1,
    lines: linesOf([usage]),
    parts: [],
  });
}

/** The node the request names, with its parts on the requested page. */
export async function explainCharge(
  db: Db,
  cycle: Cycle,
  req: ExplainRequest,
  namesOf: WorkspaceNames,
): Promise<UsageExplain> {
  const ctx = await contextOf(db, cycle, namesOf);
  switch (req.level) {
    case "cycle":
    case "group":
      return cycleOrGroup(db, cycle, ctx, req);
    case "workspace":
      return workspace(db, cycle, ctx, req);
    case "eval_run":
      return evalRun(db, cycle, ctx, req);
    case "event":
      return oneEvent(db, cycle, ctx, req);
  }
}
