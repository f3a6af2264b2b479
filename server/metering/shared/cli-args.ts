/**
 * Argument parsing for the metering CLI commands (seed, usage import, cycle, payment, group, price,
 * ingest-key): pure functions that return either the parsed input or one line saying what is wrong, so that
 * main.ts can exit with a clear message before opening the database.
 */
import { parseArgs } from "node:util";
import { parseUsd } from "../../../contract/money";
import { parseDay } from "../billing/billing";
import { type PriceRuleInput, validFromInRange } from "../pricing/prices";

export const METERING_USAGE = `  seed [--events <n>] [--seed <n>]
            create the demo organization if missing, and give it billing cycles, prices, groups,
            payments and <n> generated usage events (default DEMO_EVENTS, else 100000)
  usage import <file.csv|file.ndjson> --org <uuid|slug|name> [--backfill]
            import usage events (CSV header: event field names) in batches of 10,000;
            re-importing a file only finds duplicates; --backfill allows closed cycles
  cycle open --org <org> [--start YYYY-MM-DD]
            open a new current billing cycle (default start: the 1st of this month, UTC)
  cycle close --org <org> [--end YYYY-MM-DD] [--no-next]
            close the open cycle (end exclusive, default the 1st of this month) and open the next
  payment record --org <org> --amount <usd> [--cycle <billing cycle uuid>] [--note <text>]
            record a payment on a cycle (default: the open one)
  group set --org <org> --name <name> [--prepaid <usd>] [--workspaces <name|uuid>,...]
            create or update a workspace group; --workspaces replaces its members`;

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

/**
 * Reads `--flag value` / `--flag=value` pairs and bare `--switch`es with node:util's parseArgs;
 * positional words are returned apart. Unknown flags, flags without a value and flags given twice
 * are errors, in the commands' own words. parseArgs runs non-strict because strict mode refuses a
 * value that starts with a dash (a negative amount) and words its errors for developers.
 */
function readFlags(
  args: readonly string[],
  spec: { values: readonly string[]; switches?: readonly string[] },
): Parsed<{ flags: Record<string, string>; switches: Set<string>; positional: string[] }> {
  const options: Record<string, { type: "string" | "boolean" }> = {};
  for (const flag of spec.values) options[flag.slice(2)] = { type: "string" };
  for (const flag of spec.switches ?? []) options[flag.slice(2)] = { type: "boolean" };
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags: Record<string, string> = {};
  const switches = new Set<string>();
  const positional: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positional.push(token.value);
    if (token.kind !== "option") continue;
    const name = token.rawName;
    const type = Object.hasOwn(options, token.name) ? options[token.name]?.type : undefined;
    if (!type) return fail(`Unknown option "${name}".`);
    if (type === "boolean") {
      if (token.inlineValue) return fail(`${name} takes no value.`);
      switches.add(name);
      continue;
    }
    const value = token.value;
    if (value === undefined || value === "" || (!token.inlineValue && value.startsWith("--")))
      return fail(`${name} needs a value.`);
    if (name in flags) return fail(`${name} is given twice.`);
    flags[name] = value;
  }
  return { ok: true, value: { flags, switches, positional } };
}

const wholeNumber = (flag: string, value: string, max: number): Parsed<number> => {
  if (!/^\d+$/.test(value) || Number(value) > max)
    return fail(`${flag} must be a whole number from 0 to ${max}.`);
  return { ok: true, value: Number(value) };
};

const money = (flag: string, value: string): Parsed<bigint> => {
  try {
    return { ok: true, value: parseUsd(value) };
  } catch (err) {
    return fail(`${flag}: ${(err as Error).message}.`);
  }
};

/** The most events `seed` and DEMO_EVENTS generate (the generator streams; this bounds run time). */
export const MAX_SEED_EVENTS = 100_000_000;

/** Demo usage: how many events the embedded demo gets unless DEMO_EVENTS (or `seed --events`) says otherwise. */
export const DEFAULT_DEMO_EVENTS = 100_000;

/** DEMO_EVENTS from the environment: a whole number, default 100,000. */
export function parseDemoEvents(value: string | undefined, fallback: number): Parsed<number> {
  if (value === undefined || value.trim() === "") return { ok: true, value: fallback };
  const r = wholeNumber("DEMO_EVENTS", value.trim(), MAX_SEED_EVENTS);
  return r;
}

type SeedArgs = { events?: number; seed?: number };

export function parseSeedArgs(args: readonly string[]): Parsed<SeedArgs> {
  const r = readFlags(args, { values: ["--events", "--seed"] });
  if (!r.ok) return r;
  const { flags, positional } = r.value;
  if (positional.length)
    return fail(`Unexpected argument "${positional[0]}"; usage: seed [--events <n>] [--seed <n>]`);
  const out: SeedArgs = {};
  if (flags["--events"] !== undefined) {
    const n = wholeNumber("--events", flags["--events"], MAX_SEED_EVENTS);
    if (!n.ok) return n;
    out.events = n.value;
  }
  if (flags["--seed"] !== undefined) {
    const n = wholeNumber("--seed", flags["--seed"], 2 ** 32 - 1);
    if (!n.ok) return n;
    out.seed = n.value;
  }
  return { ok: true, value: out };
}

export type MeteringCommand =
  | { kind: "import"; org: string; file: string; backfill: boolean }
  | { kind: "cycle-open"; org: string; start?: string }
  | { kind: "cycle-close"; org: string; end?: string; openNext: boolean }
  | { kind: "payment"; org: string; amountMicros: bigint; cycle?: string; note?: string }
  | { kind: "group"; org: string; name: string; prepaidMicros?: bigint; workspaces?: string[] };

const PAYMENT_USAGE = "Usage: payment record --org <org> --amount <usd> [--cycle <uuid>] [--note <text>]";
const GROUP_USAGE = "Usage: group set --org <org> --name <name> [--prepaid <usd>] [--workspaces a,b]";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `usage import`, `cycle open|close`, `payment record`, `group set`: the words after the command. */
export function parseMeteringArgs(command: string, args: readonly string[]): Parsed<MeteringCommand> {
  const [action, ...rest] = args;
  const need = (flags: Record<string, string>, name: string): Parsed<string> =>
    flags[name] === undefined ? fail(`${name} is required.`) : { ok: true, value: flags[name] as string };
  /** The flags of an action that takes no other words, with its required --org. */
  const orgFlags = (
    spec: Parameters<typeof readFlags>[1],
  ): Parsed<{ flags: Record<string, string>; switches: Set<string>; org: string }> => {
    const r = readFlags(rest, spec);
    if (!r.ok) return r;
    if (r.value.positional.length) return fail(`Unexpected argument "${r.value.positional[0]}".`);
    const org = need(r.value.flags, "--org");
    if (!org.ok) return org;
    return { ok: true, value: { flags: r.value.flags, switches: r.value.switches, org: org.value } };
  };
  /** The one action of a command that takes flags only: --org and `required` must both be given. */
  const flagsAction = (
    expected: string,
    usage: string,
    values: readonly string[],
    required: string,
  ): Parsed<{ flags: Record<string, string>; org: string; required: string }> => {
    if (action !== expected) return fail(usage);
    const r = orgFlags({ values });
    if (!r.ok) return r;
    const value = need(r.value.flags, required);
    if (!value.ok) return value;
    return { ok: true, value: { flags: r.value.flags, org: r.value.org, required: value.value } };
  };

  if (command === "usage") {
    if (action !== "import") return fail("Usage: usage import <file.csv|file.ndjson> --org <uuid|slug|name>");
    const r = readFlags(rest, { values: ["--org"], switches: ["--backfill"] });
    if (!r.ok) return r;
    const [file, extra] = r.value.positional;
    if (!file) return fail("usage import needs a file (.csv, .ndjson or .jsonl).");
    if (extra) return fail(`Unexpected argument "${extra}".`);
    const org = need(r.value.flags, "--org");
    if (!org.ok) return org;
    return {
      ok: true,
      value: { kind: "import", org: org.value, file, backfill: r.value.switches.has("--backfill") },
    };
  }
  if (command === "cycle") {
    if (action !== "open" && action !== "close")
      return fail(
        "Usage: cycle open --org <org> [--start YYYY-MM-DD] | cycle close --org <org> [--end YYYY-MM-DD]",
      );
    const r =
      action === "open"
        ? orgFlags({ values: ["--org", "--start"] })
        : orgFlags({ values: ["--org", "--end"], switches: ["--no-next"] });
    if (!r.ok) return r;
    const org = r.value.org;
    const dateFlag = action === "open" ? "--start" : "--end";
    const raw = r.value.flags[dateFlag];
    const day = raw === undefined ? undefined : parseDay(raw);
    if (day === null) return fail(`${dateFlag} must be a date like 2026-03-01.`);
    return action === "open"
      ? { ok: true, value: { kind: "cycle-open", org, ...(day ? { start: day } : {}) } }
      : {
          ok: true,
          value: {
            kind: "cycle-close",
            org,
            ...(day ? { end: day } : {}),
            openNext: !r.value.switches.has("--no-next"),
          },
        };
  }
  if (command === "payment") {
    const r = flagsAction("record", PAYMENT_USAGE, ["--org", "--amount", "--cycle", "--note"], "--amount");
    if (!r.ok) return r;
    const { flags, org, required: amount } = r.value;
    const micros = money("--amount", amount);
    if (!micros.ok) return micros;
    if (micros.value === 0n) return fail("--amount cannot be zero.");
    const cycle = flags["--cycle"];
    if (cycle !== undefined && !UUID.test(cycle)) return fail("--cycle must be a billing cycle uuid.");
    return {
      ok: true,
      value: {
        kind: "payment",
        org,
        amountMicros: micros.value,
        ...(cycle ? { cycle } : {}),
        ...(flags["--note"] ? { note: flags["--note"] } : {}),
      },
    };
  }
  if (command === "group") {
    const r = flagsAction("set", GROUP_USAGE, ["--org", "--name", "--prepaid", "--workspaces"], "--name");
    if (!r.ok) return r;
    const { flags, org, required: name } = r.value;
    if (!name.trim()) return fail("--name must not be blank.");
    let prepaidMicros: bigint | undefined;
    if (flags["--prepaid"] !== undefined) {
      const m = money("--prepaid", flags["--prepaid"]);
      if (!m.ok) return m;
      if (m.value < 0n) return fail("--prepaid cannot be negative.");
      prepaidMicros = m.value;
    }
    const workspaces = flags["--workspaces"]
      ?.split(",")
      .map((w) => w.trim())
      .filter(Boolean);
    return {
      ok: true,
      value: {
        kind: "group",
        org,
        name: name.trim(),
        ...(prepaidMicros !== undefined ? { prepaidMicros } : {}),
        ...(workspaces ? { workspaces } : {}),
      },
    };
  }
  return fail(`Unknown command "${command}".`);
}

export const INGEST_KEY_USAGE = `  ingest-key create [--org <uuid|slug|name>] [--name <text>]
            create an ingestion key for the eval services (all organizations unless --org);
            the token (eci_...) is printed once, the database keeps only its hash
  ingest-key list
            every ingestion key: uuid, name, scope, created, last used, revoked (never a token)
  ingest-key revoke <ingest key uuid>
            refuse the key from now on
            (on the embedded database while the server runs, these go through the running server)`;

export type IngestKeyCommand =
  | { kind: "create"; org?: string; name?: string }
  | { kind: "list" }
  | { kind: "revoke"; ingestKeyUuid: string };

/** `ingest-key create|list|revoke ...` */
export function parseIngestKeyArgs(args: readonly string[]): Parsed<IngestKeyCommand> {
  const [action, ...rest] = args;
  const usage =
    "Usage: tsx server/main.ts ingest-key create [--org <org>] [--name <text>] | list | revoke <uuid>";
  if (action === "create") {
    const r = readFlags(rest, { values: ["--org", "--name"] });
    if (!r.ok) return r;
    if (r.value.positional.length) return fail(usage);
    const { "--org": org, "--name": name } = r.value.flags;
    if (name !== undefined && (name.trim() === "" || name.length > 200))
      return fail("--name must be 1 to 200 characters.");
    return {
      ok: true,
      value: { kind: "create", ...(org ? { org } : {}), ...(name ? { name: name.trim() } : {}) },
    };
  }
  if (action === "list") return rest.length ? fail(usage) : { ok: true, value: { kind: "list" } };
  if (action === "revoke") {
    const [id, ...more] = rest;
    if (!id || more.length || !UUID.test(id))
      return fail("Usage: tsx server/main.ts ingest-key revoke <ingest key uuid>");
    return { ok: true, value: { kind: "revoke", ingestKeyUuid: id.toLowerCase() } };
  }
  return fail(usage);
}

const PRICE_SET_USAGE =
  "Usage: tsx server/main.ts price set --operation <op> --eval-type <type> --unit-price <usd>\n" +
  "         [--modality <m>] [--rule-metric eval|prompt] [--org <org>] [--valid-from <ISO date-time>]\n" +
  "       Omitted dimensions match anything; without --org the rule joins the global price list.";

const PRICE_FLAGS = [
  "--operation",
  "--eval-type",
  "--modality",
  "--rule-metric",
  "--org",
  "--unit-price",
  "--valid-from",
];

/** Reads `set --flag value …` (the words after `price`); an error message instead of a rule when wrong. */
export function parsePriceSetArgs(args: readonly string[]): Parsed<PriceRuleInput> {
  const [action, ...rest] = args;
  if (action !== "set") return fail(PRICE_SET_USAGE);
  const r = readFlags(rest, { values: PRICE_FLAGS });
  if (!r.ok) return fail(r.error.startsWith("Unknown option") ? `${r.error}\n${PRICE_SET_USAGE}` : r.error);
  const { flags, positional } = r.value;
  if (positional.length) return fail(`Unexpected argument "${positional[0]}".\n${PRICE_SET_USAGE}`);
  const price = flags["--unit-price"];
  if (!price) return fail(`--unit-price is required.\n${PRICE_SET_USAGE}`);
  const unitPrice = money("--unit-price", price);
  if (!unitPrice.ok) return unitPrice;
  if (unitPrice.value < 0n) return fail("--unit-price cannot be negative.");
  const metric = flags["--rule-metric"];
  if (metric !== undefined && metric !== "eval" && metric !== "prompt")
    return fail('--rule-metric must be "eval" or "prompt".');
  let validFrom: Date | undefined;
  if (flags["--valid-from"] !== undefined) {
    validFrom = new Date(flags["--valid-from"]);
    if (Number.isNaN(validFrom.getTime())) return fail("--valid-from must be an ISO 8601 date-time.");
    if (!validFromInRange(validFrom))
      return fail("--valid-from must be from 2000-01-01 to 2100-01-01 (UTC).");
  }
  return {
    ok: true,
    value: {
      organizationUuid: flags["--org"] ?? null,
      operation: flags["--operation"] ?? null,
      evalType: flags["--eval-type"] ?? null,
      modality: flags["--modality"] ?? null,
      ruleMetric: metric ?? null,
      unitPrice: unitPrice.value,
      ...(validFrom ? { validFrom } : {}),
    },
  };
}
