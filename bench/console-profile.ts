// A CPU profile of one Billing & Usage visit in the browser (bench/console.ts --profile): Chromium's
// own sampling profiler through the DevTools protocol, started before the navigation and stopped
// once rows and chart are on screen, summarized as self time per script and per function. It says
// where the main thread spends the visit (our code, antd/React, the chart runtime, layout and
// paint, idle while waiting on the network), which is what the page-load target's next step needs.

import { basename } from "node:path";
import type { BrowserContext } from "@playwright/test";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

export type ProfileSummary = {
  totalMs: number;
  byScript: [string, number][];
  byFunction: [string, number][];
};

/** "/assets/chart-runtime-AbC123.js" → "chart-runtime.js"; V8's pseudo-frames keep their names. */
function scriptOf(frame: CallFrame): string {
  if (!frame.url) return frame.functionName.startsWith("(") ? frame.functionName : "(native)";
  const name = basename(new URL(frame.url, "http://x").pathname);
  return name.replace(/-[A-Za-z0-9_-]{8}(\.js)$/, "$1");
}

/** Self time per script and per function, in ms, largest first. */
export function summarizeProfile(profile: CpuProfile, top = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const scripts = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    total += ms;
    const script = scriptOf(frame);
    scripts.set(script, (scripts.get(script) ?? 0) + ms);
    const fn = `${frame.functionName || "(anonymous)"} ${script}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { totalMs: total, byScript: sorted(scripts), byFunction: sorted(functions) };
}

/** Profiles `navigate` (one visit in `context`'s first page) with a fine sampling interval. */
export async function profileVisit<T>(
  context: BrowserContext,
  navigate: () => Promise<T>,
): Promise<{ result: T; summary: ProfileSummary }> {
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  const result = await navigate();
  const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: CpuProfile };
  await cdp.detach();
  return { result, summary: summarizeProfile(profile) };
}

export function printProfile(label: string, s: ProfileSummary) {
  const line = ([name, ms]: [string, number]) =>
    `    ${ms.toFixed(0).padStart(6)} ms ${((100 * ms) / s.totalMs).toFixed(1).padStart(5)}%  ${name}`;
  console.log(`\nCPU profile of one ${label} (self time, ${s.totalMs.toFixed(0)} ms sampled):`);
  console.log("  by script:");
  for (const row of s.byScript) console.log(line(row));
  console.log("  by function:");
  for (const row of s.byFunction) console.log(line(row));
}
