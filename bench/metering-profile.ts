// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went, by part of the stack.
export type Node = { id: number; callFrame: { functionName: string; url: string }; hitCount?: number };
export type Profile = {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
};

/** A part of the stack: its name and which profile nodes belong to it (the first match wins). */
export type Category = [string, (n: Node) => boolean];

export const DEFAULT_CATEGORIES: Category[] = [
  ["idle (waiting for the database or the network)", (n) => n.callFrame.functionName === "(idle)"],
  ["garbage collection", (n) => n.callFrame.functionName === "(garbage collector)"],
  ["PGlite engine (WASM)", (n) => n.callFrame.url.startsWith("wasm:") || /pglite/.test(n.callFrame.url)],
  ["validation: zod", (n) => /node_modules\/zod\//.test(n.callFrame.url)],
  ["validation: events.ts", (n) => /server\/metering\/events\.ts/.test(n.callFrame.url)],
  ["pricing: pricing.ts", (n) => /server\/metering\/pricing\.ts/.test(n.callFrame.url)],
  ["ingest.ts (rows, dedup map, rollUp)", (n) => /server\/metering\/ingest\.ts/.test(n.callFrame.url)],
  ["drizzle-orm (SQL building, parameters)", (n) => /node_modules\/drizzle-orm\//.test(n.callFrame.url)],
  ["pg driver", (n) => /node_modules\/(pg|pg-protocol|pg-types|pg-pool)\//.test(n.callFrame.url)],
  [
    "fastify + body parsing",
    (n) => /node_modules\/(fastify|find-my-way|secure-json-parse|avvio|@fastify)/.test(n.callFrame.url),
  ],
  ["other product code (server/)", (n) => /\/server\//.test(n.callFrame.url)],
  ["node internals (http, streams, timers)", (n) => n.callFrame.url.startsWith("node:")],
  ["V8 builtins (JSON.parse, regexps, …)", (n) => n.callFrame.url === ""],
];

export function summarizeProfile(p: Profile, topN = 14, categories = DEFAULT_CATEGORIES): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const cat = new Map<string, number>();
  const fn = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const name = categories.find(([, test]) => test(n))?.[0] ?? "other libraries";
    cat.set(name, (cat.get(name) ?? 0) + us);
    const where = n.callFrame.url.replace(/^.*\/(node_modules\/[^/]+|server)\//, "$1/") || "builtin";
    const key = `${n.callFrame.functionName || "(anonymous)"} ${where}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
  }
  const busy = total - (cat.get("idle (waiting for the database or the network)") ?? 0);
  const pct = (us: number, of: number) => `${((us / of) * 100).toFixed(1)}%`.padStart(6);
  const lines = [
    `  ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy; share of busy time:`,
  ];
  for (const [name, us] of [...cat.entries()].sort((a, b) => b[1] - a[1]))
    if (!name.startsWith("idle")) lines.push(`  ${pct(us, busy)}  ${name}`);
  lines.push("  top functions by self time (share of busy time):");
  for (const [name, us] of [...fn.entries()]
    .filter(([k]) => !k.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN))
    lines.push(`  ${pct(us, busy)}  ${name}`);
  return lines.join("\n");
}
