import { randomBytes } from "node:crypto";
import { and, eq, like, sql } from "drizzle-orm";
import { parseUsd } from "../contract/money";
import type { RoleName } from "../contract/role-hierarchy";
import { addUtc, dayStart, utcDay } from "../contract/utc-calendar";
import { billingCycles, payments, priceRules, usageEvents, workspaceGroups } from "./db/schema";
import type { IdentityAdmin } from "./identity/admin";
import { recordPayment, resolveOrganization, setGroup } from "./metering/billing/billing";
import { groupTotals, listCycles } from "./metering/billing/cycles";
import { generateUsageEvents } from "./metering/ingestion/generate";
import { ingestUsage } from "./metering/ingestion/ingest";
import { createIngestKey } from "./metering/ingestion/ingest-keys";
import { setPriceRule } from "./metering/pricing/prices";
import type { RuleMetric } from "./metering/pricing/rule-matching";
import { DEFAULT_DEMO_EVENTS } from "./metering/shared/cli-args";
import { monthStart } from "./metering/usage/filters";
import type { Actor } from "./platform/audit";
import type { Db } from "./platform/database";
import type { WorkspaceStore } from "./workspaces/store";

export { DEFAULT_DEMO_EVENTS };

export const DEMO_ORG = { name: "Acme AI", slug: "acme-ai" };
/** The documented password of the embedded demo, used when DEMO_PASSWORD is not set. */
export const DEFAULT_DEMO_PASSWORD = "acme-demo-2026";

type DemoUser = { email: string; firstName: string; lastName: string; role: RoleName; workspaces: string[] };

export const DEMO_USERS: DemoUser[] = [
  {
    email: "admin@acme.test",
    firstName: "Ada",
    lastName: "Admin",
    role: "Admin",
    workspaces: ["Safety Research", "Red Team", "Accuracy Benchmarks"],
  },
  {
    email: "member@acme.test",
    firstName: "Max",
    lastName: "Member",
    role: "Member",
    workspaces: ["Safety Research"],
  },
  { email: "newcomer@acme.test", firstName: "Nia", lastName: "Newcomer", role: "Member", workspaces: [] },
];

const DEMO_WORKSPACES = ["Safety Research", "Red Team", "Accuracy Benchmarks"];

/**
 * Where a new demo's password came from. Only a password the product chose (generated, or the
 * documented default) is ever printed or answered: one set through DEMO_PASSWORD is the
 * operator's own secret and stays out of terminals and logs.
 */
export type DemoPasswordSource = "generated" | "default" | "DEMO_PASSWORD";

export type SeedResult =
  | { created: true; password: string; passwordSource: DemoPasswordSource }
  | { created: false; reason: string };

/** The password to show for a new demo: null when it is DEMO_PASSWORD's. */
export const shownDemoPassword = (r: { password: string; passwordSource: DemoPasswordSource }) =>
  r.passwordSource === "DEMO_PASSWORD" ? null : r.password;

/**
 * Creates the demo organization, its users and workspaces. Idempotent and resumable: a finished
 * demo is left alone, and a run cut short is completed (each piece is looked up before it is
 * made). The password is DEMO_PASSWORD, the documented default for the embedded database, or a
 * generated one (printed once) for a real PostgreSQL.
 */
export async function seedDemo(
  deps: { identity: IdentityAdmin; workspaces: WorkspaceStore },
  opts: { password: string | undefined; generate: boolean },
): Promise<SeedResult> {
  const { identity, workspaces } = deps;
  const existing = await Promise.all(DEMO_USERS.map((u) => identity.findUserByEmail(u.email)));
  if (existing.every(Boolean)) return { created: false, reason: "the demo organization already exists" };
  const passwordSource: DemoPasswordSource =
    opts.password !== undefined ? "DEMO_PASSWORD" : opts.generate ? "generated" : "default";
  const password =
    opts.password ?? (opts.generate ? randomBytes(12).toString("base64url") : DEFAULT_DEMO_PASSWORD);

  const org =
    (await identity.findOrganizationBySlug(DEMO_ORG.slug)) ??
    (await identity.createOrganization(DEMO_ORG.name, DEMO_ORG.slug));
  const spaces = new Map<string, string>();
  for (const name of DEMO_WORKSPACES) {
    const ws = (await workspaces.findByName(org.id, name)) ?? (await workspaces.create(org.id, name));
    spaces.set(name, ws.workspaceUuid);
  }
  for (const [i, u] of DEMO_USERS.entries()) {
    const user =
      existing[i] ??
      (await identity.createUser({ email: u.email, password, firstName: u.firstName, lastName: u.lastName }));
    await identity.addMember(org.id, user.id, u.role);
    for (const w of u.workspaces) {
      const uuid = spaces.get(w);
      if (uuid) await workspaces.addMember(uuid, { id: user.id, email: u.email });
    }
  }
  return { created: true, password, passwordSource };
}

/** An ingestion key for the demo organization, made with the demo by `by` (default: the CLI). */
export async function demoIngestKey(db: Db, by?: Actor): Promise<string> {
  const org = await resolveOrganization(db, DEMO_ORG.slug);
  const { token } = await createIngestKey(db, {
    name: "Demo eval service",
    organizationUuid: org.id,
    ...(by ? { by } : {}),
  });
  return token;
}

const DEFAULT_DEMO_EVENT_SEED = 2026;
const DEMO_BATCH = 10_000;

/** USD per unit, per (operation, rule metric, eval type); the organization's own price list. */
const DEMO_PRICES: { operation?: string; ruleMetric?: RuleMetric; evalType?: string; unitPrice: string }[] = [
  { unitPrice: "0.01" },
  { operation: "generation", ruleMetric: "eval", unitPrice: "0.05" },
  { operation: "generation", ruleMetric: "prompt", unitPrice: "0.002" },
  { operation: "scoring", ruleMetric: "eval", unitPrice: "0.02" },
  { operation: "scoring", ruleMetric: "prompt", unitPrice: "0.001" },
  { operation: "generation", ruleMetric: "eval", evalType: "jailbreak", unitPrice: "0.08" },
  { operation: "scoring", ruleMetric: "eval", evalType: "image_safety", unitPrice: "0.04" },
];

/** Workspace groups: research shares a prepaid balance, the red team pays as it goes. */
const DEMO_GROUPS = [
  { name: "Research", prepaid: "2500.00", workspaces: ["Safety Research", "Accuracy Benchmarks"] },
  { name: "Red Team", prepaid: "0", workspaces: ["Red Team"] },
];

type DemoUsageResult =
  | { seeded: true; generated: number; accepted: number; seconds: number }
  | { seeded: false; reason: string };

const addMonths = (day: string, n: number) => utcDay(addUtc(dayStart(day), "month", n));

/**
 * Gives the demo organization billing data: three monthly cycles (two closed, the current one
 * open), its own price rules, two workspace groups, `events` generated usage events from the
 * first cycle's start until now, and payments on the closed cycles. Idempotent and resumable:
 * each part is looked up before it is made, events carry deterministic ids (`demo-<seed>-<n>`)
 * so a run cut short is completed without counting anything twice, and a finished demo costs
 * one count query.
 */
export async function seedDemoUsage(
  deps: { db: Db; identity: IdentityAdmin; workspaces: WorkspaceStore },
  opts: { events: number; seed?: number; now?: Date; onProgress?: (done: number, total: number) => void },
): Promise<DemoUsageResult> {
  const { db } = deps;
  const now = opts.now ?? new Date();
  const seed = opts.seed ?? DEFAULT_DEMO_EVENT_SEED;
  const org = await deps.identity.findOrganizationBySlug(DEMO_ORG.slug);
  if (!org) return { seeded: false, reason: "the demo organization does not exist" };

  let cycles = await listCycles(db, org.id);
  if (!cycles.length) {
    const current = monthStart(now);
    const first = addMonths(current, -2);
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing_cycles:${org.id}`}))`);
      if ((await listCycles(tx, org.id)).length) return;
      await tx.insert(billingCycles).values([
        { organizationUuid: org.id, startDate: first, endDate: addMonths(current, -1) },
        { organizationUuid: org.id, startDate: addMonths(current, -1), endDate: current },
        { organizationUuid: org.id, startDate: current, endDate: null },
      ]);
    });
    cycles = await listCycles(db, org.id);
  }
  const firstStart = new Date(`${cycles[0]?.startDate ?? monthStart(now)}T00:00:00Z`);

  if (!(await db.$count(priceRules, eq(priceRules.organizationUuid, org.id))))
    for (const p of DEMO_PRICES)
      await setPriceRule(db, { ...p, organizationUuid: org.id, validFrom: firstStart });

  const live: { workspaceUuid: string; name: string }[] = [];
  for (const name of DEMO_WORKSPACES) {
    const ws = await deps.workspaces.findByName(org.id, name);
    if (ws) live.push(ws);
  }
  if (!(await db.$count(workspaceGroups, eq(workspaceGroups.organizationUuid, org.id))))
    for (const g of DEMO_GROUPS)
      await setGroup(db, org.id, {
        name: g.name,
        prepaidMicros: parseUsd(g.prepaid),
        workspaces: g.workspaces.filter((w) => live.some((l) => l.name === w)),
      });

  const prefix = `demo-${seed}`;
  const [have] = await db
    .select({ n: sql<string>`count(*)::text` })
    .from(usageEvents)
    .where(and(eq(usageEvents.organizationUuid, org.id), like(usageEvents.eventId, `${prefix}-%`)));
  // A few events may be refused for good (say a workspace deleted meanwhile): 99% counts as done.
  const done = Number(have?.n ?? 0) >= Math.floor(opts.events * 0.99);
  let generated = 0;
  let accepted = 0;
  const started = performance.now();
  if (!done && opts.events > 0) {
    const users = DEMO_USERS.filter((u) => u.role === "Admin" || u.workspaces.length).map((u) => u.email);
    const source = generateUsageEvents({
      seed,
      count: opts.events,
      from: firstStart,
      to: now,
      workspaceUuids: live.map((w) => w.workspaceUuid),
      createdBy: [...users, "ci-bot@acme.test"],
      idPrefix: prefix,
    });
    let batch: unknown[] = [];
    const flush = async () => {
      // Backfill: the demo's history lies in cycles that are already closed.
      const r = await ingestUsage(db, org.id, batch, { now, backfill: true, adjustments: "unaudited" });
      accepted += r.accepted;
      generated += batch.length;
      batch = [];
      opts.onProgress?.(generated, opts.events);
    };
    for (const event of source) {
      batch.push(event);
      if (batch.length === DEMO_BATCH) await flush();
    }
    if (batch.length) await flush();
  }

  const [anyPayment] = await db
    .select({ id: payments.paymentUuid })
    .from(payments)
    .where(eq(payments.organizationUuid, org.id))
    .limit(1);
  const closed = cycles.filter((c) => c.endDate !== null);
  if (!anyPayment && closed.length && (done || generated)) {
    // The older closed cycle is paid in full, the last one in part: the totals strip shows both.
    for (const [i, c] of closed.slice(-2).entries()) {
      const { groups, unattributedMicros } = await groupTotals(db, c);
      const total = groups.reduce((s, g) => s + g.totalMicros, unattributedMicros);
      const amount = i === 0 && closed.length > 1 ? total : (total / 2n / 1_000_000n) * 1_000_000n;
      if (amount > 0n)
        await recordPayment(db, org.id, {
          amountMicros: amount,
          billingCycleUuid: c.billingCycleUuid,
          note: i === 0 && closed.length > 1 ? "Invoice paid in full" : "Partial payment",
        });
    }
  }
  if (done && anyPayment) return { seeded: false, reason: "the demo usage already exists" };
  return { seeded: true, generated, accepted, seconds: (performance.now() - started) / 1000 };
}
