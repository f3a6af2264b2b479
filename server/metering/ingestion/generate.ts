/**
 * Deterministic synthetic usage: the same options always yield the same events, so demo data,
 * tests and benchmarks are reproducible. Pure (no clock, no I/O) and streaming: memory grows with
 * the events of one day, never with `count`.
 */
import type { UsageEventInput } from "./events";

export type GenerateOptions = {
  seed: number;
  count: number;
  from: Date;
  to: Date;
  workspaceUuids: readonly string[];
  createdBy: readonly string[];
  /** Prefix of every event_id (default `gen-<seed>`); ids are `<prefix>-<index>`. */
  idPrefix?: string;
};

/** mulberry32: a tiny 32-bit PRNG, good enough for synthetic data and identical on every platform. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes integers into one 32-bit seed (so a run id depends only on its eval, day and slot). */
function mix(...values: number[]): number {
  let h = 0x811c9dc5;
  for (const v of values) {
    h = Math.imul(h ^ (v >>> 0), 0x01000193);
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/** A version-4-shaped UUID drawn from the PRNG. */
function uuidFrom(rand: () => number): string {
  const hex = (n: number) => Math.floor(n).toString(16).padStart(8, "0");
  const w = [0, 1, 2, 3].map(() => rand() * 4294967296);
  const s = w.map(hex).join("");
  const variant = ((Number.parseInt(s[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-${variant}${s.slice(17, 20)}-${s.slice(20, 32)}`;
}

/** Picks index i with probability weights[i] / sum(weights). */
function picker(weights: readonly number[]): (r: number) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += w;
    cumulative.push(total);
  }
  return (r) => {
    const x = r * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** Zipf-like weights: the first item is the most frequent, each next one less so. */
const zipf = (n: number, s = 1) => Array.from({ length: n }, (_, i) => 1 / (i + 1) ** s);

type EvalType = { type: string; weight: number; names: string[]; jailbreak: number; groundTruth: number };

/** Skewed: safety dominates, the long tail is thin. */
const EVAL_TYPES: readonly EvalType[] = [
  {
    type: "safety",
    weight: 30,
    names: ["Harmful content screen", "Self-harm refusals", "PII leakage check", "Violent extremism probe"],
    jailbreak: 0.04,
    groundTruth: 0.1,
  },
  {
    type: "jailbreak",
    weight: 18,
    names: ["Role-play jailbreaks", "Prompt injection suite", "Many-shot jailbreak", "Encoding attacks"],
    jailbreak: 0.9,
    groundTruth: 0.05,
  },
  {
    type: "accuracy",
    weight: 17,
    names: ["Math word problems", "Support answers QA", "Code review accuracy", "Legal clause extraction"],
    jailbreak: 0,
    groundTruth: 0.85,
  },
  {
    type: "image_safety",
    weight: 14,
    names: ["Image moderation", "Synthetic imagery check", "Logo misuse detection"],
    jailbreak: 0.03,
    groundTruth: 0.2,
  },
  {
    type: "hallucination",
    weight: 10,
    names: ["Citation faithfulness", "RAG groundedness", "Summary consistency"],
    jailbreak: 0,
    groundTruth: 0.7,
  },
  {
    type: "toxicity",
    weight: 6,
    names: ["Toxic language", "Harassment replies"],
    jailbreak: 0.02,
    groundTruth: 0.1,
  },
  {
    type: "bias",
    weight: 5,
    names: ["Hiring bias probe", "Demographic parity"],
    jailbreak: 0,
    groundTruth: 0.3,
  },
];

const ADJUSTMENTS: readonly { note: string; min: number; max: number }[] = [
  { note: "Credit: evaluations re-run after a scoring incident", min: -250, max: -20 },
  { note: "Credit: volume discount", min: -400, max: -50 },
  { note: "Goodwill credit for onboarding", min: -100, max: -10 },
  { note: "Charge: dedicated red-team review", min: 50, max: 300 },
];

/** Relative volume per UTC weekday, Sunday first: teams run evals on working days. */
const WEEKDAY = [0.3, 1, 1.1, 1.1, 1.05, 0.9, 0.35];
/** Relative volume per UTC hour: a working-day hump. */
const HOUR = Array.from({ length: 24 }, (_, h) => (h >= 8 && h < 19 ? 1 : h >= 6 && h < 22 ? 0.45 : 0.12));

const DAY_MS = 86_400_000;
const EVALS_PER_NAME = 2;

type Evaluation = { uuid: string; name: string; type: EvalType };

/**
 * Yields `count` usage events in the JSON shape of POST /v1/usage/events, occurred_at ascending
 * within [from, to). About 5% carry no workspace, a few are price adjustments (explicit cost with
 * notes, mostly credits). Two calls with the same options yield the same events.
 */
export function* generateUsageEvents(o: GenerateOptions): Generator<UsageEventInput> {
  if (!Number.isSafeInteger(o.count) || o.count < 0)
    throw new RangeError("count must be a whole number ≥ 0.");
  const start = o.from.getTime();
  const end = o.to.getTime();
  if (Number.isNaN(start) || Number.isNaN(end)) throw new RangeError("from and to must be valid dates.");
  if (o.count === 0) return;
  if (end <= start) throw new RangeError("to must be after from.");

  const rand = mulberry32(o.seed);
  const prefix = o.idPrefix ?? `gen-${o.seed}`;

  // The catalogue of evals, drawn first so it depends only on the seed.
  const evals = new Map<EvalType, Evaluation[]>();
  for (const t of EVAL_TYPES)
    evals.set(
      t,
      t.names.flatMap((name) =>
        Array.from({ length: EVALS_PER_NAME }, (_, v) => ({
          uuid: uuidFrom(rand),
          name: v ? `${name} v${v + 1}` : name,
          type: t,
        })),
      ),
    );
  const pickType = picker(EVAL_TYPES.map((t) => t.weight));
  const pickEval = new Map(EVAL_TYPES.map((t) => [t, picker(zipf(t.names.length * EVALS_PER_NAME, 0.8))]));
  const pickWorkspace = picker(zipf(o.workspaceUuids.length, 0.9));
  const pickCreator = picker(zipf(o.createdBy.length, 1.1));
  const pickHour = picker(HOUR);

  // UTC-day segments of [from, to), weighted by weekday, ±15% day-to-day noise and their length.
  const segments: { start: number; end: number; weight: number }[] = [];
  for (let s = start; s < end; ) {
    const dayStart = Math.floor(s / DAY_MS) * DAY_MS;
    const e = Math.min(end, dayStart + DAY_MS);
    const weekday = new Date(dayStart).getUTCDay();
    segments.push({ start: s, end: e, weight: (WEEKDAY[weekday] ?? 1) * (0.85 + 0.3 * rand()) * (e - s) });
    s = e;
  }
  const totalWeight = segments.reduce((sum, seg) => sum + seg.weight, 0);

  // Evenly spread adjustments: about one per 4,000 events, at least one once there are 20 events.
  const adjustments = o.count < 20 ? 0 : Math.max(1, Math.floor(o.count / 4000));
  const adjustmentAt = new Set(
    Array.from({ length: adjustments }, (_, k) => Math.floor(((k + 1) * o.count) / (adjustments + 1))),
  );

  let index = 0;
  let cumulative = 0;
  let allotted = 0;
  for (const [dayIndex, seg] of segments.entries()) {
    cumulative += seg.weight;
    // Cumulative rounding hands out exactly `count` events over the days.
    const upTo =
      dayIndex === segments.length - 1 ? o.count : Math.round((o.count * cumulative) / totalWeight);
    const n = upTo - allotted;
    allotted = upTo;
    if (n <= 0) continue;

    const times = new Float64Array(n);
    const span = seg.end - seg.start;
    for (let i = 0; i < n; i++) {
      // An hour by the working-day profile; a partial day falls back to a uniform draw.
      let t = -1;
      for (let tries = 0; tries < 8 && (t < seg.start || t >= seg.end); tries++) {
        const base = Math.floor(seg.start / DAY_MS) * DAY_MS;
        t = base + pickHour(rand()) * 3_600_000 + Math.floor(rand() * 3_600_000);
      }
      if (t < seg.start || t >= seg.end) t = seg.start + Math.floor(rand() * span);
      times[i] = t;
    }
    times.sort();

    const runs = new Map<string, string>();
    for (const t of times) {
      const type = EVAL_TYPES[pickType(rand())] as EvalType;
      const pool = evals.get(type) ?? [];
      const evalIndex = pickEval.get(type)?.(rand()) ?? 0;
      const ev = pool[evalIndex] as Evaluation;
      // Most evals run once a day; busy days have a second or third run.
      const slot = rand() < 0.75 ? 0 : 1 + Math.floor(rand() * 2);
      const runKey = `${type.type}:${evalIndex}:${slot}`;
      let run = runs.get(runKey);
      if (!run) {
        run = uuidFrom(mulberry32(mix(o.seed, dayIndex, EVAL_TYPES.indexOf(type), evalIndex, slot)));
        runs.set(runKey, run);
      }
      const workspace =
        o.workspaceUuids.length && rand() >= 0.05 ? (o.workspaceUuids[pickWorkspace(rand())] ?? null) : null;
      const creator =
        o.createdBy.length && rand() >= 0.02 ? (o.createdBy[pickCreator(rand())] ?? null) : null;
      const operation = rand() < 0.4 ? "generation" : "scoring";
      const prompt = rand() < 0.35;
      const modality =
        type.type === "image_safety" ? "image" : rand() < 0.88 ? "text" : rand() < 0.6 ? "image" : "audio";
      const event: UsageEventInput = {
        event_id: `${prefix}-${index}`,
        occurred_at: new Date(t).toISOString(),
        workspace_uuid: workspace,
        eval_uuid: ev.uuid,
        eval_run_uuid: run,
        name: ev.name,
        operation,
        eval_type: type.type,
        modality,
        is_jailbreak: rand() < type.jailbreak,
        has_ground_truth: rand() < type.groundTruth,
        created_by: creator,
        // A prompt-metric event counts prompts or responses; an eval-metric event counts evals.
        quantity: prompt ? 5 + Math.floor(rand() ** 2 * 500) : rand() < 0.9 ? 1 : 2 + Math.floor(rand() * 4),
        rule_metric: prompt ? "prompt" : "eval",
      };
      if (adjustmentAt.has(index)) {
        const adj = ADJUSTMENTS[Math.floor(rand() * ADJUSTMENTS.length)] ?? ADJUSTMENTS[0];
        if (adj) {
          const cents = Math.round((adj.min + rand() * (adj.max - adj.min)) * 100);
          const abs = Math.abs(cents);
          event.cost = `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
          event.notes = adj.note;
          event.quantity = 1;
        }
      }
      index += 1;
      yield event;
    }
  }
}
