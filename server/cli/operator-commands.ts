/**
 * The operator commands (price set|awaiting, operator grant|revoke, workspace restore, cycle open|close,
 * payment record, group set, events months|archive|restore, audit purge): what the command line
 * asks for, and the lines it prints. The work is done by a backend — the database itself, or the
 * operator API of the server running on the embedded database — so both print the same lines and
 * exit with the same status: 0 done, 1 refused (one line on stderr).
 */
import { z } from "zod";
import { formatUsdExact } from "../../contract/money";
import { type AwaitingReport, awaitingLines } from "../metering/pricing/awaiting-pricing";
import { type RerateJson, rerateLines } from "../metering/pricing/price-change";
import { type ShadowJson, shadowLines } from "../metering/pricing/price-shadows";
import { describeRule, type PriceRuleInput } from "../metering/pricing/prices";
import type { PriceRule } from "../metering/pricing/rule-matching";
import { type MeteringCommand, parseMeteringArgs, parsePriceSetArgs } from "../metering/shared/cli-args";
import {
  type EventsCommand,
  type EventsOutcome,
  eventsLines,
  parseEventsArgs,
} from "../metering/shared/partitions-cli";

export type OperatorCommand =
  | { kind: "price"; input: PriceRuleInput; wait: boolean }
  | { kind: "price-awaiting"; org: string }
  | { kind: "operator"; email: string; grant: boolean }
  | { kind: "workspace-restore"; workspaceUuid: string }
  | Exclude<MeteringCommand, { kind: "import" }>
  | { kind: "events"; command: EventsCommand }
  | { kind: "audit-purge" };

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The commands this module runs, as main.ts lists them. */
export const OPERATOR_COMMANDS = [
  "price",
  "operator",
  "workspace",
  "cycle",
  "payment",
  "group",
  "events",
  "audit",
];

/** The command line of an operator command; null for any other command (usage import, seed…). */
export function parseOperatorCommand(
  command: string,
  args: readonly string[],
): Parsed<OperatorCommand> | null {
  const [action, target] = args;
  switch (command) {
    case "operator":
      if (!target || (action !== "grant" && action !== "revoke"))
        return { ok: false, error: "Usage: tsx server/main.ts operator grant|revoke <email>" };
      return { ok: true, value: { kind: "operator", email: target, grant: action === "grant" } };
    case "workspace":
      if (action !== "restore" || !target || !z.uuid().safeParse(target).success)
        return { ok: false, error: "Usage: tsx server/main.ts workspace restore <workspace uuid>" };
      return { ok: true, value: { kind: "workspace-restore", workspaceUuid: target } };
    case "audit":
      if (action !== "purge" || args.length !== 1)
        return { ok: false, error: "Usage: tsx server/main.ts audit purge" };
      return { ok: true, value: { kind: "audit-purge" } };
    case "price": {
      if (action === "awaiting") {
        const [, flag, org, ...more] = args;
        if (flag !== "--org" || !org || more.length)
          return { ok: false, error: "Usage: tsx server/main.ts price awaiting --org <org>" };
        return { ok: true, value: { kind: "price-awaiting", org } };
      }
      // --no-wait: the re-rating job's id is printed and the command returns while it runs.
      const wait = !args.includes("--no-wait");
      const r = parsePriceSetArgs(args.filter((a) => a !== "--no-wait"));
      return r.ok ? { ok: true, value: { kind: "price", input: r.value, wait } } : r;
    }
    case "events": {
      const r = parseEventsArgs(args);
      return r.ok ? { ok: true, value: { kind: "events", command: r.value } } : r;
    }
    case "cycle":
    case "payment":
    case "group": {
      const r = parseMeteringArgs(command, args);
      if (!r.ok) return r;
      if (r.value.kind === "import") throw new Error("unreachable: an import is the usage command's");
      return { ok: true, value: r.value };
    }
    default:
      return null;
  }
}

/** A refused command: its one line, and the exit status (1; 2 when the arguments were bad). */
export class CommandRefused extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export type SetPriceOptions = { wait: boolean; progress?: (done: number, total: number | null) => void };
export type SetPriceResult = PriceRule & {
  job_uuid: string;
  /** null without waiting. */
  rerating: RerateJson | null;
  shadowed_by: ShadowJson[];
};

/** A waited-for re-rating that failed: its job's error. */
export const rerateFailed = (job: string, error: string | null) =>
  new CommandRefused(`Re-rating job ${job} failed: ${error ?? "unknown error"}`);

type CycleShape = { billingCycleUuid: string; startDate: string; endDate: string | null };

/** What the commands need done; every refusal is a CommandRefused. */
export type OperatorBackend = {
  organization(ref: string): Promise<{ id: string; name: string }>;
  /**
   * The new rule, its re-rating job (with `wait`, what it re-rated once done: price-change.ts) and
   * the rules outranking it (price-shadows.ts). `progress` hears the job's progress while waiting.
   */
  setPrice(input: PriceRuleInput, opts: SetPriceOptions): Promise<SetPriceResult>;
  /** The organization's usage awaiting pricing, per dimension. */
  awaitingPricing(organizationUuid: string): Promise<AwaitingReport>;
  /** False when no user has that email. */
  setOperator(email: string, grant: boolean): Promise<boolean>;
  restoreWorkspace(workspaceUuid: string): Promise<{ name: string }>;
  openCycle(organizationUuid: string, start?: string): Promise<CycleShape>;
  closeCycle(
    organizationUuid: string,
    opts: { end?: string; openNext: boolean },
  ): Promise<{ closed: CycleShape; opened: CycleShape | null }>;
  recordPayment(
    organizationUuid: string,
    input: { amountMicros: bigint; cycle?: string; note?: string },
  ): Promise<{ paymentUuid: string; cycleStart: string }>;
  setGroup(
    organizationUuid: string,
    input: { name: string; prepaidMicros?: bigint; workspaces?: string[] },
  ): Promise<{ name: string; prepaidMicros: bigint; workspaces: string[] }>;
  /** `progress` follows an archive's or restore's job while the command waits for it. */
  events(
    command: EventsCommand,
    progress?: (done: number, total: number | null) => void,
  ): Promise<EventsOutcome>;
  purgeAudit(): Promise<{ purged: number; retentionDays: number }>;
};

/** A progress bar on a terminal's stderr (none when stderr is not a terminal: logs stay clean). */
function progressBar(label = "Re-rating", unit = "events") {
  const err = process.stderr;
  if (!err.isTTY) return null;
  const width = 30;
  return {
    show(done: number, total: number | null) {
      const share = total ? Math.min(1, done / total) : 0;
      const filled = Math.round(share * width);
      err.write(
        `\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.round(share * 100)}% ` +
          `(${done.toLocaleString("en-US")} of ${total === null ? "?" : total.toLocaleString("en-US")} ${unit})`,
      );
    },
    end: () => err.write("\n"),
  };
}

export type Output = { log(line: string): void; error(line: string): void };

const console_: Output = { log: (l) => console.log(l), error: (l) => console.error(l) };

/** Runs one command on the backend and prints its lines; answers the exit status. */
export async function runOperatorCommand(
  cmd: OperatorCommand,
  backend: OperatorBackend,
  out: Output = console_,
): Promise<number> {
  try {
    await run(cmd, backend, out);
    return 0;
  } catch (err) {
    if (!(err instanceof CommandRefused)) throw err;
    out.error(err.message);
    return err.exitCode;
  }
}

async function run(cmd: OperatorCommand, b: OperatorBackend, out: Output) {
  switch (cmd.kind) {
    case "price": {
      const ref = cmd.input.organizationUuid;
      const organizationUuid = ref ? (await b.organization(ref)).id : null;
      const bar = progressBar();
      const rule = await b.setPrice(
        { ...cmd.input, organizationUuid },
        { wait: cmd.wait, ...(bar ? { progress: bar.show } : {}) },
      );
      bar?.end();
      out.log(describeRule(rule));
      if (rule.rerating) for (const line of rerateLines(rule.rerating)) out.log(line);
      else out.log(`Re-rating queued as job ${rule.job_uuid} (GET /v1/operator/jobs/${rule.job_uuid}).`);
      for (const line of shadowLines(rule.shadowed_by)) out.log(line);
      return;
    }
    case "price-awaiting": {
      const org = await b.organization(cmd.org);
      for (const line of awaitingLines(org.name, await b.awaitingPricing(org.id))) out.log(line);
      return;
    }
    case "operator":
      if (!(await b.setOperator(cmd.email, cmd.grant)))
        throw new CommandRefused(`No user with email ${cmd.email}.`);
      out.log(
        cmd.grant
          ? `${cmd.email} is now a provider operator.`
          : `${cmd.email} is no longer a provider operator.`,
      );
      return;
    case "workspace-restore": {
      const w = await b.restoreWorkspace(cmd.workspaceUuid);
      out.log(`Workspace "${w.name}" (${cmd.workspaceUuid}) is restored.`);
      return;
    }
    case "events": {
      const c = cmd.command;
      const bar =
        c.action !== "months" && c.wait !== false
          ? progressBar(`events ${c.action} ${c.month}`, "steps")
          : null;
      const outcome = await b.events(c, bar?.show);
      bar?.end();
      for (const line of eventsLines(outcome)) out.log(line);
      return;
    }
    case "audit-purge": {
      const { purged, retentionDays } = await b.purgeAudit();
      out.log(
        `Purged ${purged} audit log ${purged === 1 ? "entry" : "entries"} older than ${retentionDays} days.`,
      );
      return;
    }
  }
  const org = await b.organization(cmd.org);
  if (cmd.kind === "cycle-open") {
    const c = await b.openCycle(org.id, cmd.start);
    out.log(`Opened billing cycle ${c.billingCycleUuid} for ${org.name} from ${c.startDate}.`);
  } else if (cmd.kind === "cycle-close") {
    const { closed, opened } = await b.closeCycle(org.id, {
      ...(cmd.end ? { end: cmd.end } : {}),
      openNext: cmd.openNext,
    });
    out.log(
      `Closed billing cycle ${closed.billingCycleUuid} of ${org.name}: ${closed.startDate} to ${closed.endDate}.` +
        (opened ? ` Opened ${opened.billingCycleUuid} from ${opened.startDate}.` : ""),
    );
  } else if (cmd.kind === "payment") {
    const p = await b.recordPayment(org.id, {
      amountMicros: cmd.amountMicros,
      ...(cmd.cycle ? { cycle: cmd.cycle } : {}),
      ...(cmd.note ? { note: cmd.note } : {}),
    });
    out.log(
      `Recorded payment ${p.paymentUuid} of $${formatUsdExact(cmd.amountMicros)} for ${org.name}, cycle from ${p.cycleStart}.`,
    );
  } else {
    const g = await b.setGroup(org.id, {
      name: cmd.name,
      ...(cmd.prepaidMicros !== undefined ? { prepaidMicros: cmd.prepaidMicros } : {}),
      ...(cmd.workspaces ? { workspaces: cmd.workspaces } : {}),
    });
    out.log(
      `Group "${g.name}" of ${org.name}: prepaid $${formatUsdExact(g.prepaidMicros)}, workspaces: ${g.workspaces.join(", ") || "(none)"}.`,
    );
  }
}
