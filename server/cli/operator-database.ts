/**
 * The operator commands done on the database itself: PostgreSQL, or the embedded database while
 * no server runs on it (the data directory's lock then keeps a server from starting meanwhile).
 * Every change is audited as the command line's (source cli), as the API would audit it.
 */
import { restoreError } from "../api/operator/workspaces";
import type { Product } from "../app";
import { setOperator } from "../identity/impersonation/operators";
import {
  BillingError,
  closeCycle,
  openCycle,
  recordPayment,
  resolveOrganization,
  setGroup,
} from "../metering/billing/billing";
import { awaitingReport } from "../metering/pricing/awaiting-pricing";
import { rerateJson } from "../metering/pricing/price-change";
import { shadowJson, shadowsOf } from "../metering/pricing/price-shadows";
import { storePriceRule } from "../metering/pricing/prices";
import { rerateResultOf, rerateRunnerOptions } from "../metering/pricing/rerate-job";
import { doEventsCommand } from "../metering/shared/partitions-cli";
import { CLI_ACTOR, purgeAuditLog } from "../platform/audit";
import { getJob, type JobRow, runUntilDone } from "../platform/jobs";
import {
  CommandRefused,
  type OperatorBackend,
  rerateFailed,
  type SetPriceOptions,
} from "./operator-commands";

const SILENT = { info: () => {}, error: () => {} };

/** Runs `work` (which ends the job) while telling `progress` the job's progress every quarter second. */
async function followJob(
  db: Product["database"]["db"],
  uuid: string,
  progress: SetPriceOptions["progress"],
  work: () => Promise<JobRow>,
): Promise<JobRow> {
  if (!progress) return work();
  const timer = setInterval(() => {
    void getJob(db, uuid).then((j) => j && progress(j.done, j.total));
  }, 250);
  try {
    const job = await work();
    progress(job.done, job.total);
    return job;
  } finally {
    clearInterval(timer);
  }
}

/** A billing action's refusal as the command's one line. */
const refused = (err: unknown): never => {
  if (err instanceof BillingError) throw new CommandRefused(err.message);
  throw err;
};

export function databaseOperatorBackend(product: Product): OperatorBackend {
  const db = product.database.db;
  const actor = CLI_ACTOR;
  return {
    organization: (ref) => resolveOrganization(db, ref).catch(refused),
    setPrice: async (input, opts) => {
      const { rule, jobUuid } = await storePriceRule(db, input, actor);
      const shadowed_by = (await shadowsOf(db, rule)).map(shadowJson);
      // Without waiting the job stays queued: the next server on this database runs it.
      if (!opts.wait) return { ...rule, job_uuid: jobUuid, rerating: null, shadowed_by };
      const job = await followJob(db, jobUuid, opts.progress, () =>
        runUntilDone(db, jobUuid, rerateRunnerOptions(db, SILENT)),
      );
      const result = rerateResultOf(job);
      if (!result) throw rerateFailed(jobUuid, job.error);
      return { ...rule, job_uuid: jobUuid, rerating: rerateJson(result), shadowed_by };
    },
    awaitingPricing: (org) => awaitingReport(db, org),
    setOperator: (email, grant) => setOperator(db, email, grant, actor),
    async restoreWorkspace(uuid) {
      const r = await product.api.workspaces.restoreWorkspace(uuid, actor);
      if (r.status !== "restored") throw new CommandRefused(restoreError(r).message);
      return { name: r.workspace.name };
    },
    openCycle: (org, start) => openCycle(db, org, start, { actor }).catch(refused),
    closeCycle: (org, { end, openNext }) =>
      closeCycle(db, org, { ...(end ? { endDate: end } : {}), openNext, actor }).catch(refused),
    async recordPayment(org, { amountMicros, cycle, note }) {
      const p = await recordPayment(db, org, {
        amountMicros,
        ...(cycle ? { billingCycleUuid: cycle } : {}),
        note: note ?? null,
        actor,
      }).catch(refused);
      return { paymentUuid: p.paymentUuid, cycleStart: p.cycle.startDate };
    },
    async setGroup(org, input) {
      const g = await setGroup(db, org, { ...input, actor }).catch(refused);
      return { name: g.group.groupName, prepaidMicros: g.group.prepaidMicros, workspaces: g.workspaces };
    },
    async events(command, progress) {
      const r = await doEventsCommand(db, command, actor, progress);
      if (!r.ok) throw new CommandRefused(r.refusal);
      return r.outcome;
    },
    async purgeAudit() {
      const retentionDays = product.config.auditRetentionDays;
      return { purged: await purgeAuditLog(db, retentionDays, actor), retentionDays };
    },
  };
}
