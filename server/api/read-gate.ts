import type { FastifyReply } from "fastify";
import { ApiError } from "../platform/errors";

/**
 * How many expensive reads (CSV exports and reports, report pages, record searches) one
 * organization may run at once in this API process, all kinds together. Past it a call is
 * refused at once with 429 and Retry-After instead of queueing: one administrator's reports then
 * hold at most this many of the database's read connections (PostgreSQL) or turns (the embedded
 * database), and the other organizations keep theirs.
 */
export const MAX_EXPENSIVE_READS_PER_ORG = 3;

/** Seconds a refused caller is told to wait. */
const RETRY_AFTER_SECONDS = 5;

export type ReadKind = { name: string; limit: number; refusal: () => ApiError };

/** A read bounded only by the organization's total (a report page, a search, an explanation). */
export const expensiveRead = (name: string): ReadKind => ({
  name,
  limit: MAX_EXPENSIVE_READS_PER_ORG,
  refusal: () => new ApiError("too_many_reads"),
});

/** An export of which at most `limit` run at once per organization, `what` naming them in the 429. */
export const exportRead = (name: string, limit: number, what: string): ReadKind => ({
  name,
  limit,
  refusal: () =>
    new ApiError(
      "too_many_exports",
      `At most ${limit} ${what} of an organization run at a time. Try again when one has finished.`,
    ),
});

export type ReadGate = {
  /** Admits one read of `kind` for the organization (returns its release) or throws the refusal. */
  enter(org: string, kind: ReadKind, reply: FastifyReply): () => void;
};

export function createReadGate(total = MAX_EXPENSIVE_READS_PER_ORG): ReadGate {
  const running = new Map<string, Map<string, number>>();
  return {
    enter(org, kind, reply) {
      const mine = running.get(org) ?? new Map<string, number>();
      const all = [...mine.values()].reduce((a, b) => a + b, 0);
      const ofKind = mine.get(kind.name) ?? 0;
      if (ofKind >= kind.limit || all >= total) {
        reply.header("retry-after", String(RETRY_AFTER_SECONDS));
        throw ofKind >= kind.limit
          ? kind.refusal()
          : new ApiError(
              "too_many_reads",
              `At most ${total} reports, exports or searches of an organization run at a time. Try again when one has finished.`,
            );
      }
      mine.set(kind.name, ofKind + 1);
      running.set(org, mine);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (mine.get(kind.name) ?? 1) - 1;
        if (n > 0) mine.set(kind.name, n);
        else mine.delete(kind.name);
        if (mine.size === 0 && running.get(org) === mine) running.delete(org);
      };
    },
  };
}
