/**
 * The operator commands done through the operator API of the server running on the embedded
 * database (PGlite admits one process: the command must not open the directory beside it). The
 * API's refusals are the command's one line: a 400 means the arguments were bad (exit 2), any
 * other refusal exit 1.
 */
import { formatUsdExact, parseUsd } from "../../contract/money";
import type { AwaitingReport } from "../metering/pricing/awaiting-pricing";
import type { RerateJson } from "../metering/pricing/price-change";
import type { ShadowJson } from "../metering/pricing/price-shadows";
import type { MonthPartition } from "../metering/shared/partitions";
import { type EventsOutcome, eventsOutcomeOf } from "../metering/shared/partitions-cli";
import type { PartitionOutcome } from "../metering/shared/partitions-job";
import {
  CommandRefused,
  type OperatorBackend,
  rerateFailed,
  type SetPriceOptions,
  type SetPriceResult,
} from "./operator-commands";
import { type ServerCall, ServerCallError } from "./running-server";

type CycleJson = { billing_cycle_uuid: string; start_date: string; end_date: string | null };
type PriceRuleJson = {
  price_rule_uuid: string;
  organization_uuid: string | null;
  operation: string | null;
  eval_type: string | null;
  modality: string | null;
  rule_metric: string | null;
  unit_price_usd: string;
  valid_from: string;
  valid_to: string | null;
};
type JobJson = {
  state: "queued" | "running" | "done" | "failed";
  done: number;
  total: number | null;
  error: string | null;
  rerating: RerateJson | null;
};
type GroupJson = { name: string; prepaid_usd: string; workspaces: string[] };

const cycleOf = (c: CycleJson) => ({
  billingCycleUuid: c.billing_cycle_uuid,
  startDate: c.start_date,
  endDate: c.end_date,
});

const enc = encodeURIComponent;

export function serverOperatorBackend(call: ServerCall): OperatorBackend {
  /** The API's refusal as the command's. */
  const refusal = (err: unknown): never => {
    if (err instanceof ServerCallError) throw new CommandRefused(err.message, err.status === 400 ? 2 : 1);
    throw err;
  };
  const api = <T>(method: string, path: string, body?: unknown): Promise<T> =>
    call<T>(method, `/v1/operator${path}`, body).catch(refusal);
  const orgPath = (org: string, rest: string) => `/organizations/${enc(org)}${rest}`;

  /** Follows a job until it ends: what it re-rated, or its failure as the command's refusal. */
  async function waitForJob(uuid: string, progress?: SetPriceOptions["progress"]): Promise<RerateJson> {
    for (;;) {
      const job = await api<JobJson>("GET", `/jobs/${enc(uuid)}`);
      progress?.(job.done, job.total);
      if (job.state === "done" && job.rerating) return job.rerating;
      if (job.state === "failed") throw rerateFailed(uuid, job.error);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  return {
    async organization(ref) {
      const o = await api<{ organization_uuid: string; name: string }>("GET", `/organizations/${enc(ref)}`);
      return { id: o.organization_uuid, name: o.name };
    },
    async setPrice(input, opts) {
      const r = await api<PriceRuleJson & { rerating: { job_uuid: string }; shadowed_by: ShadowJson[] }>(
        "POST",
        "/price-rules",
        {
          organization_uuid: input.organizationUuid ?? null,
          operation: input.operation ?? null,
          eval_type: input.evalType ?? null,
          modality: input.modality ?? null,
          rule_metric: input.ruleMetric ?? null,
          unit_price_usd:
            typeof input.unitPrice === "bigint" ? formatUsdExact(input.unitPrice) : input.unitPrice,
          ...(input.validFrom ? { valid_from: input.validFrom.toISOString() } : {}),
        },
      );
      return {
        priceRuleUuid: r.price_rule_uuid,
        organizationUuid: r.organization_uuid,
        operation: r.operation,
        evalType: r.eval_type,
        modality: r.modality,
        ruleMetric: r.rule_metric,
        unitPriceMicros: parseUsd(r.unit_price_usd),
        validFrom: new Date(r.valid_from),
        validTo: r.valid_to ? new Date(r.valid_to) : null,
        job_uuid: r.rerating.job_uuid,
        rerating: opts.wait ? await waitForJob(r.rerating.job_uuid, opts.progress) : null,
        shadowed_by: r.shadowed_by,
      } satisfies SetPriceResult;
    },
    async awaitingPricing(org) {
      return api<AwaitingReport>("GET", orgPath(org, "/awaiting-pricing"));
    },
    async setOperator(email, grant) {
      try {
        if (grant) await call("POST", "/v1/operator/operators", { email });
        else await call("DELETE", `/v1/operator/operators/${enc(email)}`);
        return true;
      } catch (err) {
        // An email no user has (or no email at all): as on the database, no such user.
        if (err instanceof ServerCallError && (err.status === 404 || err.status === 400)) return false;
        return refusal(err);
      }
    },
    async restoreWorkspace(uuid) {
      return api<{ name: string }>("POST", `/workspaces/${enc(uuid)}/restore`);
    },
    async openCycle(org, start) {
      return cycleOf(
        await api<CycleJson>("POST", orgPath(org, "/billing-cycles"), start ? { start_date: start } : {}),
      );
    },
    async closeCycle(org, { end, openNext }) {
      const r = await api<{ closed: CycleJson; opened: CycleJson | null }>(
        "POST",
        orgPath(org, "/billing-cycles/close"),
        { ...(end ? { end_date: end } : {}), open_next: openNext },
      );
      return { closed: cycleOf(r.closed), opened: r.opened ? cycleOf(r.opened) : null };
    },
    async recordPayment(org, { amountMicros, cycle, note }) {
      const p = await api<{ payment_uuid: string; billing_cycle_uuid: string }>(
        "POST",
        orgPath(org, "/payments"),
        {
          amount_usd: formatUsdExact(amountMicros),
          ...(cycle ? { billing_cycle_uuid: cycle } : {}),
          ...(note ? { note } : {}),
        },
      );
      const cycles = await api<{ billing_cycles: CycleJson[] }>("GET", orgPath(org, "/billing-cycles"));
      const paidOn = cycles.billing_cycles.find((c) => c.billing_cycle_uuid === p.billing_cycle_uuid);
      return { paymentUuid: p.payment_uuid, cycleStart: paidOn?.start_date ?? p.billing_cycle_uuid };
    },
    async setGroup(org, { name, prepaidMicros, workspaces }) {
      const g = await api<GroupJson>("PUT", orgPath(org, "/workspace-groups"), {
        name,
        ...(prepaidMicros !== undefined ? { prepaid_usd: formatUsdExact(prepaidMicros) } : {}),
        ...(workspaces ? { workspaces } : {}),
      });
      return { name: g.name, prepaidMicros: parseUsd(g.prepaid_usd), workspaces: g.workspaces };
    },
    async events(command, progress): Promise<EventsOutcome> {
      if (command.action === "months")
        return {
          action: "months",
          months: (await api<{ months: MonthPartition[] }>("GET", "/event-partitions")).months,
        };
      const { action, month } = command;
      const r = await api<{ job: { job_uuid: string } }>("POST", `/event-partitions/${enc(month)}/${action}`);
      const jobUuid = r.job.job_uuid;
      if (command.wait === false) return { action, month, status: "queued", jobUuid };
      for (;;) {
        const job = await api<JobJson & { partition: PartitionOutcome | null }>(
          "GET",
          `/jobs/${enc(jobUuid)}`,
        );
        progress?.(job.done, job.total);
        if (job.state === "done" && job.partition) return eventsOutcomeOf(action, job.partition);
        if (job.state === "failed") throw new CommandRefused(job.error ?? `Job ${jobUuid} failed.`);
        await new Promise((res) => setTimeout(res, 250));
      }
    },
    async purgeAudit() {
      const r = await api<{ purged: number; retention_days: number }>("POST", "/audit-log/purge");
      return { purged: r.purged, retentionDays: r.retention_days };
    },
  };
}
