// A housekeeping job of the serving process (so the embedded database keeps its one writer): once
// shortly after start, then once a day. Its runs never throw: a failure is logged and the next run
// tries again. Every API process may run such a job, so each must be idempotent.
const DAY_MS = 24 * 60 * 60 * 1000;

export type JobLog = { info(obj: object, msg: string): void; error(obj: object, msg: string): void };

type Job = {
  /** Does the work; what it answers is logged with `done` unless null. */
  run: () => Promise<object | null>;
  done: string;
  failed: string;
  firstAfterMs: number;
};

/** Starts `job`; returns the function that stops it. */
export function scheduleDaily(log: JobLog, { run, done, failed, firstAfterMs }: Job): () => void {
  const once = async () => {
    try {
      const result = await run();
      if (result) log.info(result, done);
    } catch (err) {
      log.error({ err }, failed);
    }
  };
  const first = setTimeout(() => void once(), firstAfterMs);
  const daily = setInterval(() => void once(), DAY_MS);
  first.unref();
  daily.unref();
  return () => {
    clearTimeout(first);
    clearInterval(daily);
  };
}
