// Reads the landing page will make first, started by the entry (main.tsx) as soon as the session
// and the current user are known, while the console's code is still being evaluated. The product
// API's fetch hands each answer to the first identical GET (same URL) made within a few seconds,
// once; any other request, a later one, or an early read that failed goes to the network as usual.
// Why: once the console renders, the main thread is busy for most of a second, and each answer the
// page waits for is read only between two renders; answers already read before the first render
// let the page draw its rows in its first renders instead of after several rounds of them.

/** An early answer older than this is not used (the page asks the API again). */
export const EARLY_READ_TTL_MS = 10_000;

type EarlyRead = { startedAt: number; answer: Promise<unknown>; settled?: { body: unknown } };

const reads = new Map<string, EarlyRead>();

/** Starts `run` for `url` unless a read of it is under way. */
export function startEarlyRead(url: string, run: () => Promise<unknown>, now = performance.now()): void {
  if (reads.has(url)) return;
  const answer = run();
  const read: EarlyRead = { startedAt: now, answer };
  answer.then(
    (body) => {
      read.settled = { body };
    },
    () => {}, // its failure is the page's own request's to report, if it asks
  );
  reads.set(url, read);
}

/** The read of `url` if `ready` takes it, removed: given once; undefined when it is too old. */
function take(url: string, now: number, ready: (read: EarlyRead) => boolean): EarlyRead | undefined {
  const read = reads.get(url);
  if (!read || !ready(read)) return undefined;
  reads.delete(url);
  return now - read.startedAt <= EARLY_READ_TTL_MS ? read : undefined;
}

/** The early answer for `url`, given once; undefined when there is none or it is too old. */
export function takeEarlyRead(url: string, now = performance.now()): Promise<unknown> | undefined {
  return take(url, now, () => true)?.answer;
}

/**
 * The early answer for `url` if it has already arrived, given once and at once (no promise): what
 * a query's first render can hold (providers/first-answers). Undefined when there is none yet.
 */
export function takeArrivedEarlyRead(url: string, now = performance.now()): { body: unknown } | undefined {
  return take(url, now, (read) => read.settled !== undefined)?.settled;
}

/** Whether any early read is still there to be taken (none once the landing page has its own). */
export const earlyReadsPending = (): boolean => reads.size > 0;

/** Drops every early read (tests; a sign-out). */
export function clearEarlyReads(): void {
  reads.clear();
}
