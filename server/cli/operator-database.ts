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
import { shadowJson } from "../metering/pricing/price-shadows";
import { setPriceRule } from "../metering/pricing/prices";
import { doEventsCommand } from "../metering/shared/partitions-cli";
import { CLI_ACTOR, purgeAuditLog } from "../platform/audit";
import { CommandRefused, type OperatorBackend } from "./operator-commands";

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
    setPrice: async (input) => {
      const rule = await setPriceRule(db, input, actor);
      return { ...rule, rerating: rerateJson(rule.rerating), shadowed_by: rule.shadowedBy.map(shadowJson) };
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
    async events(command) {
      const r = await doEventsCommand(db, command, actor);
      if (!r.ok) throw new CommandRefused(r.refusal);
      return r.outcome;
    },
    async purgeAudit() {
      const retentionDays = product.config.auditRetentionDays;
      return { purged: await purgeAuditLog(db, retentionDays, actor), retentionDays };
    },
  };
}
