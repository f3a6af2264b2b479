// The benchmark machine's speed, read in the benchmark's own browser: a fixed piece of main-thread
// work (script, DOM building, style and layout, as a page's first render does) timed before and
// after the run. The floors say how fast this machine serves a bare page in the same minutes; this
// says how fast it runs the same work from one run, or one day, to the next, so that a slower run
// of unchanged code shows as a slower machine rather than a slower console. Same Chromium build
// only: the benchmark's header names it.
import { launchChromium } from "./browser";
import { quantile } from "./served-product";

/** The work: the same on every call, on an empty page. Returns its duration in ms. */
function work(): number {
  const started = performance.now();
  // Script: numbers from a fixed linear congruential sequence, sorted; an object through JSON.
  let x = 12_345;
  const numbers = Array.from({ length: 100_000 }, () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x;
  });
  numbers.sort((a, b) => a - b);
  const rows = Array.from({ length: 5_000 }, (_, i) => ({
    id: i,
    name: `row ${i}`,
    cost: (i * 0.0125).toFixed(4),
  }));
  const copied = JSON.parse(JSON.stringify(rows)) as typeof rows;
  // DOM, style and layout: a table of those rows, measured, then removed.
  const table = document.createElement("table");
  for (const row of copied.slice(0, 2_000)) {
    const tr = table.insertRow();
    tr.className = `row row-${row.id % 7}`;
    for (const cell of [row.id, row.name, row.cost]) tr.insertCell().textContent = String(cell);
  }
  document.body.append(table);
  const height = table.offsetHeight;
  table.remove();
  if (height <= 0 || numbers[0] === undefined) throw new Error("the reference work did not run");
  return performance.now() - started;
}

/** The work's median duration over `runs` calls, in ms, in a Chromium of its own, so that the
 * readings before and after a run see the same fresh browser (read in the benchmark's browser after
 * a whole run, one came out at 170 ms against 107 at its start). */
export async function cpuReference(runs = 7): Promise<number> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.setContent("<!doctype html><html><body></body></html>");
    await page.evaluate(work); // once untimed: compiled and warm, as the runs after it
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await page.evaluate(work));
    return quantile(times, 0.5);
  } finally {
    await browser.close();
  }
}
