/**
 * What follows a committed price change, for every organization it may price (its own, or every
 * organization with usage for a global rule): the open cycle's events re-rated (rerate.ts), the
 * closed cycles' difference billed as correction lines in the open cycle (closed-corrections.ts),
 * and, with an actor, one audit entry per organization whose bill moved, with the affected events'
 * totals before and after.
 */
import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { priceAwaitingEvents } from "./awaiting-pricing";
import { type Correction, correctClosedCycles } from "./closed-corrections";
import { fitsRule, RULE_PRICED, rerateOpenCycle } from "./rerate";
import type { PageKey } from "./rerate-sql";
import type { PriceRule } from "./rule-matching";

export type RerateSummary = {
  /** Organizations whose open cycle or closed cycles the change moved. */
  organizations: number;
  /** Open-cycle events re-priced, and their total cost before and after. */
  events: number;
  beforeMicros: bigint;
  afterMicros: bigint;
  corrections: Correction[];
};

export const NO_RERATE: RerateSummary = {
  organizations: 0,
  events: 0,
  beforeMicros: 0n,
  afterMicros: 0n,
  corrections: [],
};

/** The organizations a rule may price: its own, or every one with usage for a global rule. */
export async function organizationsOf(db: Db, rule: PriceRule): Promise<string[]> {
  if (rule.organizationUuid) return [rule.organizationUuid];
  const rows = (await db.execute(
    sql`select organization_uuid from usage_versions order by organization_uuid`,
  )) as unknown as { rows: { organization_uuid: string }[] };
  return rows.rows.map((r) => r.organization_uuid);
}

/** The events a re-rating after `rule` reads at most: its progress's total. */
export async function rerateTotal(db: Db, rule: PriceRule): Promise<number> {
  const rows = (await db.execute(sql`
    select count(*)::int as n from usage_events
     where ${rule.organizationUuid ? sql`organization_uuid = ${rule.organizationUuid} and` : sql``}
           ${RULE_PRICED} and (${fitsRule(rule)})
       and occurred_at >= ${rule.validFrom.toISOString()}::timestamptz`)) as unknown as {
    rows: { n: number }[];
  };
  return Number(rows.rows[0]?.n ?? 0);
}

/** Where a re-rating stands, as a job stores it (JSON: money as decimal strings of micro-dollars). */
export type RerateCursor = {
  /** The awaiting events the rule covers were priced (and the organizations listed). */
  awaitingDone: boolean;
  /** The organizations to re-rate (fixed at the start), and the index of the current one. */
  orgs: string[] | null;
  org: number;
  phase: "open" | "closed";
  /** The open cycle's last event re-rated. */
  key: PageKey | null;
  /** The closed cycles before this index are corrected. */
  cycle: number;
  /** The current organization's open-cycle totals and closed-cycle corrections so far. */
  open: { events: number; before: string; after: string };
  corrections: CorrectionJson[];
  /** Every organization done so far. */
  summary: {
    organizations: number;
    events: number;
    before: string;
    after: string;
    corrections: CorrectionJson[];
  };
};

type CorrectionJson = Omit<Correction, "amountMicros"> & { amountMicros: string };

export const startCursor = (): RerateCursor => ({
  awaitingDone: false,
  orgs: null,
  org: 0,
  phase: "open",
  key: null,
  cycle: 0,
  open: { events: 0, before: "0", after: "0" },
  corrections: [],
  summary: { organizations: 0, events: 0, before: "0", after: "0", corrections: [] },
});

/** How a job follows a re-rating: its progress, and its place stored with the work it describes. */
export type RerateIo = {
  /** Events read so far (a resumed job's recorded progress). */
  done: number;
  /** The events it will read, when counted already (null: count them). */
  total: number | null;
  save(tx: Tx, done: number, cursor: RerateCursor): Promise<void>;
  progress(done: number, total?: number): Promise<void>;
  /** A test's crash injection: called at each point a process may die. */
  fault?(point: string): void | Promise<void>;
};

const NO_IO: RerateIo = { done: 0, total: 0, save: async () => {}, progress: async () => {} };
const add = (a: string, b: bigint) => String(BigInt(a) + b);
const toCorrection = (c: CorrectionJson): Correction => ({ ...c, amountMicros: BigInt(c.amountMicros) });

/**
 * Re-rates after `rule` was set; `beforeRules` is the price list just before (for the closed
 * cycles' differences) and `afterRules` the one just after (default: as it is now). Safe to run
 * again for the same rule: the open cycle's events already at their price are left alone and
 * correction lines are stored once. With a cursor and io (a job's), it resumes where it stopped:
 * each page's key, each cycle's lines and each organization's audit entry are stored with the work.
 */
export async function rerateAfterPriceChange(
  db: Db,
  rule: PriceRule,
  beforeRules: readonly PriceRule[],
  opts: {
    actor?: Actor;
    now?: Date;
    batch?: number;
    afterRules?: readonly PriceRule[];
    cursor?: RerateCursor;
    io?: RerateIo;
  } = {},
): Promise<RerateSummary> {
  const io = opts.io ?? NO_IO;
  const cur = opts.cursor ?? startCursor();
  let done = io.done;
  const save = (tx: Tx) => io.save(tx, done, cur);
  if (!cur.awaitingDone || !cur.orgs) {
    const awaiting = await priceAwaitingEvents(db, rule.organizationUuid, opts);
    await io.fault?.("awaiting priced");
    cur.awaitingDone = true;
    cur.orgs = await organizationsOf(db, rule);
    // Counted when the price was set; events priced just now are read too.
    if (io.total === null || awaiting.priced > 0) await io.progress(done, await rerateTotal(db, rule));
    await db.transaction(save);
  }
  for (; cur.org < cur.orgs.length; ) {
    const org = cur.orgs[cur.org] as string;
    if (cur.phase === "open") {
      await rerateOpenCycle(db, org, rule, {
        ...opts,
        after: cur.key,
        onPage: async (tx, page) => {
          done += page.scanned;
          cur.key = page.last ?? cur.key;
          cur.open = {
            events: cur.open.events + page.events,
            before: add(cur.open.before, page.beforeMicros),
            after: add(cur.open.after, page.afterMicros),
          };
          await io.fault?.("open page stored");
          await save(tx);
        },
      });
      await io.fault?.("open cycle re-rated");
      cur.phase = "closed";
      await db.transaction(save);
    }
    await correctClosedCycles(db, org, rule, beforeRules, {
      ...opts,
      ...(opts.afterRules ? { afterRules: opts.afterRules } : {}),
      fromCycle: cur.cycle,
      onPage: async (n) => {
        done += n;
        await io.progress(done);
      },
      onCycle: async (tx, index, c) => {
        if (c && c.lines > 0) cur.corrections.push({ ...c, amountMicros: String(c.amountMicros) });
        cur.cycle = index + 1;
        await io.fault?.("closed cycle corrected");
        await save(tx);
      },
    });
    await io.fault?.("closed cycles corrected");
    await db.transaction(async (tx: Tx) => {
      const open = {
        events: cur.open.events,
        before: BigInt(cur.open.before),
        after: BigInt(cur.open.after),
      };
      if (open.events || cur.corrections.length) {
        const s = cur.summary;
        cur.summary = {
          organizations: s.organizations + 1,
          events: s.events + open.events,
          before: add(s.before, open.before),
          after: add(s.after, open.after),
          corrections: [...s.corrections, ...cur.corrections],
        };
        if (opts.actor)
          await auditRerating(tx, org, rule, opts.actor, open, cur.corrections.map(toCorrection));
      }
      Object.assign(cur, { org: cur.org + 1, phase: "open", key: null, cycle: 0, corrections: [] });
      cur.open = { events: 0, before: "0", after: "0" };
      await save(tx);
    });
  }
  const s = cur.summary;
  return {
    organizations: s.organizations,
    events: s.events,
    beforeMicros: BigInt(s.before),
    afterMicros: BigInt(s.after),
    corrections: s.corrections.map(toCorrection),
  };
}

/** One audit entry per organization whose bill moved, with the affected events' totals. */
function auditRerating(
  tx: Tx,
  org: string,
  rule: PriceRule,
  actor: Actor,
  open: { events: number; before: bigint; after: bigint },
  corrected: Correction[],
) {
  return writeAudit(tx, {
    organizationUuid: org,
    actor,
    action: "price_rule.rerated",
    target: { type: "price_rule", id: rule.priceRuleUuid, label: `version ${rule.version ?? 1}` },
    before: { events: open.events, total: formatUsdExact(open.before) },
    after: {
      events: open.events,
      total: formatUsdExact(open.after),
      valid_from: rule.validFrom.toISOString(),
      closed_cycle_corrections: corrected.map((c) => ({
        billing_cycle_uuid: c.billingCycleUuid,
        period_start: c.periodStart,
        period_end: c.periodEnd,
        events: c.events,
        amount: formatUsdExact(c.amountMicros),
      })),
    },
  });
}

/** The summary as the operator API answers it (money as exact decimal strings). */
export type RerateJson = {
  organizations: number;
  events: number;
  before_total: string;
  after_total: string;
  corrections: {
    organization_uuid: string;
    billing_cycle_uuid: string;
    period_start: string;
    period_end: string;
    events: number;
    lines: number;
    amount: string;
  }[];
};

export const rerateJson = (s: RerateSummary): RerateJson => ({
  organizations: s.organizations,
  events: s.events,
  before_total: formatUsdExact(s.beforeMicros),
  after_total: formatUsdExact(s.afterMicros),
  corrections: s.corrections.map((c) => ({
    organization_uuid: c.organizationUuid,
    billing_cycle_uuid: c.billingCycleUuid,
    period_start: c.periodStart,
    period_end: c.periodEnd,
    events: c.events,
    lines: c.lines,
    amount: formatUsdExact(c.amountMicros),
  })),
});

/** The re-rating as the command line prints it under the new rule's line. */
export function rerateLines(r: RerateJson): string[] {
  const lines = [
    r.events
      ? `Re-rated ${r.events.toLocaleString("en-US")} ${r.events === 1 ? "event" : "events"} of the open cycle (${r.organizations} ${r.organizations === 1 ? "organization" : "organizations"}): $${r.before_total} before, $${r.after_total} after.`
      : "No event of an open cycle changed price.",
  ];
  for (const c of r.corrections)
    lines.push(
      `Closed cycle ${c.period_start} to ${c.period_end} of organization ${c.organization_uuid}: ${c.events} ${c.events === 1 ? "event" : "events"} priced differently, corrected by $${c.amount} in the open cycle (${c.lines} ${c.lines === 1 ? "line" : "lines"}).`,
    );
  return lines;
}
