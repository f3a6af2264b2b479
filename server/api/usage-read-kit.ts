import type { Db } from "../platform/database";
import { workspaceNamesFrom } from "../workspaces/cache";
import type { WorkspaceStore } from "../workspaces/store";
import { createReadGate, type ReadGate } from "./read-gate";

// What the usage read routes (records, summary, series, awaiting pricing, export, report, explain,
// completeness) share: who may call them, where they read, and the gate of their expensive reads.

/**
 * Usage is the bill: only organization administrators (Admin or Owner) read it, as the Billing &
 * Usage page and billingcycles. The credential may be a bearer token or an API key, like the
 * other administrator calls (workspaces, members): an administrator's personal key, or an
 * organization key (created by an administrator; it acts with its creator's current role).
 * Members, and members' personal keys, get 403.
 */
export const USAGE_READ_CONFIG = {
  auth: "bearer_or_api_key",
  admin: "read the organization's usage",
} as const;
export const USAGE_TAGS = ["Usage"];

/** What the usage read plugins are given. */
export type UsageReadDeps = {
  db: Db;
  /** Where the usage is read (a replica when configured); db otherwise. */
  readDb?: Db;
  /** Expensive reads admitted per organization, one gate shared by every usage read plugin. */
  reads?: ReadGate;
  /** The workspace store the names come from (the API's cache); else read each time. */
  workspaces?: WorkspaceStore;
};

/**
 * The handle a usage read plugin reads through, its read gate and its workspace names. Every usage
 * read, the cycle and the usage version included, goes to one handle: the version is read before
 * the data through it, so a lagging replica can never cache old figures under a new version.
 */
export function usageReadsOf(deps: UsageReadDeps) {
  const db = deps.readDb ?? deps.db;
  return { db, reads: deps.reads ?? createReadGate(), namesOf: workspaceNamesFrom(db, deps.workspaces) };
}
