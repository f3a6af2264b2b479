import { EventEmitter } from "node:events";
import pg from "pg";

// Access-token revocation signals. Identity bumps a user's token version (identity.user
// .token_version) and says so twice: `pg_notify(TOKEN_VERSION_CHANNEL, user_id)` in the same
// transaction, heard by every API process that LISTENs on the same PostgreSQL database, and
// `announceTokenRevocation` after the commit, heard at once by the API in this very process
// (PGlite is single-process; on PostgreSQL the notification would arrive a few ms later).

export const TOKEN_VERSION_CHANNEL = "token_version";

// One bus per database handle: two products built in one process (tests) on one PostgreSQL
// database hear each other only through NOTIFY, as two processes would.
const buses = new WeakMap<object, EventEmitter>();
const busOf = (db: object) => {
  let bus = buses.get(db);
  if (!bus) {
    bus = new EventEmitter();
    bus.setMaxListeners(0);
    buses.set(db, bus);
  }
  return bus;
};

/**
 * Tells this process's API caches on this database handle that these users' token versions
 * changed (call it after the commit).
 */
export function announceTokenRevocation(db: object, userIds: readonly string[]): void {
  const bus = buses.get(db);
  if (bus) for (const id of userIds) bus.emit("revoked", id);
}

/** Subscribes to this process's revocations on this database handle; returns the unsubscribe. */
function onTokenRevocation(db: object, listener: (userId: string) => void): () => void {
  const bus = busOf(db);
  bus.on("revoked", listener);
  return () => void bus.off("revoked", listener);
}

export type ListenHandlers = {
  /** A notification's payload. */
  message(payload: string): void;
  /**
   * Notifications may have been missed: called whenever the listening connection is lost and
   * once each time it is (re-)established, so a cache filled meanwhile is dropped.
   */
  reset(): void;
};

/**
 * LISTENs on `channel` with a dedicated connection (a pooled one would be handed to queries),
 * reconnecting after a loss with a growing delay (0.25 s to 5 s). Returns the stop function.
 */
export function listenOnPostgres(url: string, channel: string, h: ListenHandlers): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = 250;
  const quoted = `"${channel.replace(/"/g, '""')}"`;

  const retry = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, 5000);
  };

  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    h.reset();
    c.end().catch(() => {});
    retry();
  };

  async function connect() {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, keepAlive: true });
    client = c;
    c.on("error", () => lost(c));
    c.on("end", () => lost(c));
    c.on("notification", (n) => {
      if (n.channel === channel && n.payload) h.message(n.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${quoted}`);
      if (stopped || client !== c) return void c.end().catch(() => {});
      delay = 250;
      h.reset();
    } catch {
      lost(c);
    }
  }

  void connect();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}

type Listen = (channel: string, handlers: ListenHandlers) => () => Promise<void>;

/**
 * The identity gateway's watchTokenVersions: this process's bus, plus LISTEN when the database
 * offers it. `close` (the owning service's onClose) ends every watcher and refuses new LISTENs.
 */
export function createTokenVersionWatch(db: object, listen: Listen | undefined) {
  const active = new Set<() => Promise<void>>();
  let closed = false;
  return {
    watch(h: { changed(userId: string): void; reset(): void }): () => Promise<void> {
      const off = onTokenRevocation(db, h.changed);
      const unlisten = closed
        ? undefined
        : listen?.(TOKEN_VERSION_CHANNEL, { message: h.changed, reset: h.reset });
      const stop = async () => {
        active.delete(stop);
        off();
        await unlisten?.();
      };
      active.add(stop);
      return stop;
    },
    async close() {
      closed = true;
      await Promise.all([...active].map((stop) => stop()));
    },
  };
}
