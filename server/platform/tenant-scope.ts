/**
 * The organization a piece of work is done for, carried through its async calls, so shared
 * resources can take turns between organizations instead of serving whoever asks most: the
 * embedded database's statement queue (pglite-proxy.ts) serves organizations round-robin. Route
 * handlers run inside the caller's scope (route-hooks.ts); work outside any request (sign-ins,
 * the webhook worker, maintenance) has the empty scope, which takes its turn like any tenant.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<string>();

/** Runs `fn`, and everything it starts, as work for `tenant`. */
export const runAsTenant = <T>(tenant: string, fn: () => T): T => scope.run(tenant, fn);

/** The tenant the current work is for ("" outside any). */
export const currentTenant = (): string => scope.getStore() ?? "";
