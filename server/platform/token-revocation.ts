import { EventEmitter } from "node:events";
import { type SQL, sql } from "drizzle-orm";
import pg from "pg";

// Access-token revocation signals. Identity bumps a user's token version (identity.user
// .token_version) and says so twice: `pg_notify(TOKEN_VERSION_CHANNEL, user_id)` in the same
// transaction, heard by every API process that LISTENs on the same PostgreSQL database, and
// `announceTokenRevocation` after the commit, heard at once by the API in this very process
// (PGlite is single-process; on PostgreSQL the notification would arrive a few ms later).

export const TOKEN_VERSION_CHANNEL = "token_version";

// Other caches in front of the database share the channel, the LISTEN connection and the bus:
// their notices are "<topic>:<id>" (user ids, the token-version payload, are UUIDs and never
// start with a topic), e.g. "org:<organization id>" when an organization's workspaces, their
// members or its name changed, "api_key:<token hash>" when an API key was deleted.
export type ChangeTopic = "org" | "api_key";
const TOPIC = /^(org|api_key):(.+)$/s;

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

/**
 * Queues a notice to other processes' caches (`pg_notify` takes effect at the commit of the
 * surrounding transaction); call `announceChange` after the commit for this process.
 */
export async function notifyChange(
  q: { execute(query: SQL): Promise<unknown> },
  topic: ChangeTopic,
  id: string,
): Promise<void> {
  await q.execute(sql`select pg_notify(${TOKEN_VERSION_CHANNEL}, ${`${topic}:${id}`})`);
}

/** Tells this process's caches on this database handle that `id` of `topic` changed. */
export function announceChange(db: object, topic: ChangeTopic, id: string): void {
  buses.get(db)?.emit("notice", topic, id);
}

/** Subscribes to this process's revocations and notices on this database handle; returns the unsubscribe. */
function onTokenRevocation(db: object, h: ChangeWatcher): () => void {
  const bus = busOf(db);
  const revoked = (userId: string) => h.changed?.(userId);
  const notice = (topic: ChangeTopic, id: string) => h.notice?.(topic, id);
  bus.on("revoked", revoked);
  bus.on("notice", notice);
  return () => {
    bus.off("revoked", revoked);
    bus.off("notice", notice);
  };
}

/** What a cache hears: a user's token version changed, a notice of another topic, or a possible gap. */
export type ChangeWatcher = {
  changed?(userId: string): void;
  notice?(topic: ChangeTopic, id: string): void;
  reset(): void;
};

function dispatch(h: ChangeWatcher, payload: string) {
  const m = TOPIC.exec(payload);
  if (m) h.notice?.(m[1] as ChangeTopic, m[2] as string);
  else h.changed?.(payload);
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
 * The identity gateway's watchTokenVersions, and the watch of the other caches' notices: this
 * process's bus, plus LISTEN when the database offers it. `close` (the owning service's onClose)
 * ends every watcher and refuses new LISTENs.
 */
export function createTokenVersionWatch(db: object, listen: Listen | undefined) {
  const active = new Set<() => Promise<void>>();
  let closed = false;
  return {
    watch(h: ChangeWatcher): () => Promise<void> {
      const off = onTokenRevocation(db, h);
      const unlisten = closed
        ? undefined
        : listen?.(TOKEN_VERSION_CHANNEL, { message: (payload) => dispatch(h, payload), reset: h.reset });
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
