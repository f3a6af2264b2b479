/**
 * Sends the budget alert emails after the transactions that recorded the transitions committed:
 * budget_alerts is the outbox (a transition leaves its triggered_notified_at or resolved_notified_at
 * null), so a transaction that rolls back leaves no notice and sends nothing. The sender claims
 * pending notices in one UPDATE (FOR UPDATE SKIP LOCKED) before sending, so every API process may
 * run one and each notice is sent once: one email per transition to each of the organization's
 * administrators. A notice left by a process without a sender (the CLI opening a cycle) is picked
 * up by the next delivery of the organization or by the periodic sweep.
 */

import { sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import nodemailer from "nodemailer";
import type { Db } from "../../platform/database";
import type { IdentityGateway } from "../../platform/identity-gateway";
import { arrayLiteral } from "../shared/sql-arrays";
import { type BudgetMail, budgetAlertMail } from "./mail";
import { type AlertRecord, alertRecordSql } from "./store";

/** Delivers one email (SMTP, the log, or a test's capture). */
export type SendMail = (mail: BudgetMail) => Promise<void>;

export type BudgetNotifier = {
  /** Sends the pending notices (of one organization, or all); resolves when they are sent. */
  deliver(organizationUuid?: string): Promise<void>;
  /** Starts a delivery in the background (after an ingestion committed). */
  schedule(organizationUuid: string): void;
  /** Resolves when the background deliveries started so far have finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
};

/** Notices claimed per delivery round. */
const BATCH = 100;
/** How often every API process looks for notices nobody sent (left by the CLI, or a crash). */
const SWEEP_MS = 60_000;

type Rows<T> = { rows: T[] };
type Claimed = { id: string; send_triggered: boolean; send_resolved: boolean };

const truthy = (v: unknown) => v === true || v === "t" || v === "true";

/** The SMTP sender when SMTP_URL is set, else one that writes the email to the log. */
export function createSendMail(
  opts: { smtpUrl: string | undefined; from: string },
  logger: FastifyBaseLogger,
): { send: SendMail; close(): void } {
  if (!opts.smtpUrl)
    return {
      async send(mail) {
        logger.info({ email: mail }, "budget alert email kept in the log (no SMTP_URL)");
      },
      close() {},
    };
  const transport = nodemailer.createTransport(opts.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: opts.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}

export function createBudgetNotifier(
  db: Db,
  deps: {
    gateway: Pick<IdentityGateway, "listOrganizationAdmins" | "findOrganization">;
    send: SendMail;
    consoleUrl: string;
    logger: FastifyBaseLogger;
    /** Run the periodic sweep (off in tests that drive deliveries themselves). */
    sweep?: boolean;
  },
): BudgetNotifier {
  const running = new Set<Promise<void>>();

  async function claim(organizationUuid: string | undefined): Promise<Claimed[]> {
    const result = (await db.execute(sql`
      with pending as (
        select budget_alert_uuid,
               triggered_notified_at is null as send_triggered,
               (resolved_at is not null and resolved_notified_at is null) as send_resolved
          from budget_alerts
         where (triggered_notified_at is null or (resolved_at is not null and resolved_notified_at is null))
           ${organizationUuid === undefined ? sql`` : sql`and organization_uuid = ${organizationUuid}`}
         order by triggered_at
         limit ${BATCH}
         for update skip locked
      )
      update budget_alerts a
         set triggered_notified_at = coalesce(a.triggered_notified_at, now()),
             resolved_notified_at = case when a.resolved_at is null then null
                                         else coalesce(a.resolved_notified_at, now()) end
        from pending p
       where a.budget_alert_uuid = p.budget_alert_uuid
      returning p.budget_alert_uuid::text as id, p.send_triggered, p.send_resolved`)) as unknown as Rows<Claimed>;
    return result.rows;
  }

  async function sendClaimed(claimed: Claimed[]) {
    const ids = claimed.map((c) => c.id);
    const records = (await db.execute(
      sql`${alertRecordSql} where a.budget_alert_uuid = any(${arrayLiteral(ids)}::uuid[]) order by a.triggered_at, a.threshold`,
    )) as unknown as Rows<AlertRecord>;
    const wanted = new Map(claimed.map((c) => [c.id, c]));
    const admins = new Map<string, string[]>();
    const names = new Map<string, string>();
    for (const r of records.rows) {
      const org = r.organization_uuid;
      if (!admins.has(org)) {
        admins.set(
          org,
          (await deps.gateway.listOrganizationAdmins(org)).map((u) => u.email),
        );
        names.set(org, (await deps.gateway.findOrganization(org))?.name ?? "your organization");
      }
      const c = wanted.get(r.budget_alert_uuid);
      const states = [
        ...(c && truthy(c.send_triggered) ? (["triggered"] as const) : []),
        ...(c && truthy(c.send_resolved) ? (["resolved"] as const) : []),
      ];
      for (const state of states) {
        const mail = budgetAlertMail({ ...r, hard_limit: truthy(r.hard_limit) }, state, {
          organizationName: names.get(org) ?? "your organization",
          consoleUrl: deps.consoleUrl,
        });
        for (const to of admins.get(org) ?? []) {
          try {
            await deps.send({ to, ...mail });
          } catch (err) {
            // Claimed notices are not retried: a flaky SMTP server must not mail the others twice.
            deps.logger.error({ err, budgetAlertUuid: r.budget_alert_uuid }, "budget alert email not sent");
          }
        }
      }
    }
  }

  async function deliver(organizationUuid?: string) {
    for (;;) {
      const claimed = await claim(organizationUuid);
      if (!claimed.length) return;
      await sendClaimed(claimed);
      if (claimed.length < BATCH) return;
    }
  }

  const track = (p: Promise<void>) => {
    const done = p
      .catch((err) => deps.logger.error({ err }, "budget alert emails failed"))
      .finally(() => running.delete(done));
    running.add(done);
  };
  const timer = deps.sweep === false ? null : setInterval(() => track(deliver()), SWEEP_MS);
  timer?.unref();

  return {
    deliver,
    schedule: (organizationUuid) => track(deliver(organizationUuid)),
    async settled() {
      while (running.size) await Promise.all([...running]);
    },
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all([...running]);
    },
  };
}

/** The notifier of each database handle (one per API process; none in the CLI). */
const notifiers = new WeakMap<Db, BudgetNotifier>();

export function registerBudgetNotifier(db: Db, notifier: BudgetNotifier) {
  notifiers.set(db, notifier);
}

export const budgetNotifierOf = (db: Db) => notifiers.get(db);

/** After a commit that recorded transitions: send their emails in the background, if this process can. */
export function noticeBudgetAlerts(db: Db, organizationUuid: string) {
  notifiers.get(db)?.schedule(organizationUuid);
}
