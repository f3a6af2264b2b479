// One process per embedded data directory. PGlite is PostgreSQL's single-user mode: two processes
// on one directory each believe they own its files, and their writes destroy the database. The
// process that opens it holds DATA_DIR/pglite.lock for its whole life; the lock names it (pid,
// what it is, and the server's address once it listens) so whoever is refused learns what to do.
// A lock left by a process that died (kill -9, a crash, a power cut) is recognised as stale — its
// pid is gone, or belongs to a newer process than the one that wrote it — and taken over.
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError } from "./config";

export const LOCK_FILE = "pglite.lock";

export type LockHolder = {
  pid: number;
  /** The process's start time as the kernel counts it (Linux), to tell a reused pid. */
  started: string | null;
  host: string;
  /** "server", or the command line of a command. */
  role: string;
  /** The server's address, once it listens. */
  url?: string;
  since: string;
};

/** When the kernel started process `pid` (clock ticks since boot), or null where unknown. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the holder still runs: same host, pid alive, and (where the kernel tells) not reused. */
export function holderIsAlive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true; // a directory shared with another machine: never guess
  if (!alive(h.pid)) return false;
  const started = processStart(h.pid);
  return h.started === null || started === null || started === h.started;
}

const readText = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
};

function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(readText(file) ?? "") as LockHolder;
    return typeof h.pid === "number" ? h : null;
  } catch {
    return null; // missing or unreadable: locks are written whole (link, rename), so never torn
  }
}

/** The live process holding the directory, if any. */
export function lockHolder(dataDir: string): LockHolder | null {
  const h = readHolder(join(resolve(dataDir), LOCK_FILE));
  return h && holderIsAlive(h) ? h : null;
}

/** The one line a refused process prints. */
export function describeHolder(dataDir: string, h: LockHolder): string {
  if (h.role === "server")
    return h.url
      ? `An Eval Console server (pid ${h.pid}, ${h.url}) is running on the data directory ${dataDir}; stop it first, or set DATA_DIR to another directory.`
      : `An Eval Console server (pid ${h.pid}) is starting on the data directory ${dataDir}; wait until it serves (operator commands then go through it), or stop it.`;
  return `Another command (pid ${h.pid}: ${h.role}) is using the data directory ${dataDir}; wait for it to finish.`;
}

export type DataDirLock = {
  /** Adds the server's address to the lock, for whoever is refused. */
  update(fields: Partial<Pick<LockHolder, "url">>): void;
  release(): void;
};

/**
 * Takes the directory's lock or throws a ConfigError naming its live holder. Atomic: the lock is
 * written under a private name and hard-linked into place, which fails if another process got
 * there first; a stale lock is removed only after reading it again, so two processes recovering
 * from the same dead one cannot both win.
 */
export function acquireDataDirLock(dataDir: string, role: string): DataDirLock {
  const dir = resolve(dataDir);
  const file = join(dir, LOCK_FILE);
  let holder: LockHolder = {
    pid: process.pid,
    started: processStart(process.pid),
    host: hostname(),
    role,
    since: new Date().toISOString(),
  };
  const body = () => `${JSON.stringify(holder)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const temp = join(dir, `.${LOCK_FILE}.${process.pid}.${randomBytes(4).toString("hex")}`);
    writeFileSync(temp, body(), { mode: 0o600 });
    try {
      linkSync(temp, file);
      rmSync(temp, { force: true });
      break;
    } catch (err) {
      rmSync(temp, { force: true });
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const seen = readText(file);
    const current = readHolder(file);
    if (current && holderIsAlive(current)) throw new ConfigError(describeHolder(dataDir, current));
    // Stale: removed only if it is still the file just judged (another process recovering from
    // the same dead holder may have replaced it with its own lock meanwhile).
    if (seen !== null && readText(file) === seen) rmSync(file, { force: true });
    if (attempt === 4) throw new ConfigError(`Cannot lock the data directory ${dataDir}; try again.`);
  }

  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  };
  process.on("exit", release);
  return {
    update(fields) {
      if (!held) return;
      holder = { ...holder, ...fields };
      // Written under a private name and renamed over the lock: readers see the old or the new.
      const temp = join(dir, `.${LOCK_FILE}.${process.pid}.update`);
      writeFileSync(temp, body(), { mode: 0o600 });
      renameSync(temp, file);
    },
    release,
  };
}
