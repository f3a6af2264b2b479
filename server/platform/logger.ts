import pino from "pino";

/** JSON logs on stdout (one object per line), as log collectors expect. */
export function createLogger(level: string) {
  return pino({ level, base: { service: "eval-console" }, timestamp: pino.stdTimeFunctions.isoTime });
}
