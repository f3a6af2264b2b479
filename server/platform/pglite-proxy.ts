// The serving thread's side of the embedded database's worker (pglite-worker.mjs): an object with
// the part of PGlite's interface Drizzle uses (query, transaction) that sends each statement to
// the worker and waits for its answer, so a long statement never blocks this thread's event loop.
import { Worker } from "node:worker_threads";
import { currentTenant } from "./tenant-scope";

/** `blob`: the file a `COPY … FROM '/dev/blob'` reads (an in-memory Blob: a file-backed one cannot
 * cross to the worker thread). */
type QueryOptions = { rowMode?: "array" | "object"; parsers?: Record<number, unknown>; blob?: Blob };
type Answer = { id: number; ok: boolean; result?: unknown; error?: Record<string, unknown> };
type Pending = { resolve(value: unknown): void; reject(err: Error): void };
type Priority = "now" | "later";
type Turn = Pending & { work: () => Promise<unknown>; abandoned: () => boolean };

/** What a worker that stopped answers every call: a server that cannot take it (503, not 500). */
const stopped = (why: string) =>
  Object.assign(new Error(`The embedded database stopped: ${why}`), { code: "57P01" });

/** What PostgreSQL says when statement_timeout stops a statement. */
const timedOut = () =>
  Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });

/** An error from the worker, with PostgreSQL's fields (code, detail, constraint…) back on it. */
function revive(plain: Record<string, unknown> | undefined): Error {
  const { name, message, ...fields } = plain ?? {};
  return Object.assign(new Error(String(message ?? "database error")), fields, {
    name: typeof name === "string" ? name : "Error",
  });
}

export type Queryable = {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
};

export class PGliteWorkerClient implements Queryable {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #dead: Error | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on("message", (m: Answer) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(revive(m.error));
    });
    const die = (err: Error) => {
      this.#dead ??= err;
      for (const p of this.#pending.values()) p.reject(this.#dead);
      this.#pending.clear();
    };
    worker.on("error", (err) => die(stopped(err.message)));
    worker.on("exit", (code) => die(stopped(`its thread exited (${code})`)));
  }

  /** Starts the worker and opens the database in it (a directory, or memory when null). */
  static async open(dataDir: string | null): Promise<PGliteWorkerClient> {
    const worker = new Worker(new URL("./pglite-worker.mjs", import.meta.url), {
      workerData: { dataDir },
    });
    const ready = await new Promise<{ ready: boolean; error?: Record<string, unknown> }>(
      (resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
        worker.once("exit", (code) => reject(new Error(`the database thread exited (${code})`)));
      },
    );
    if (!ready.ready) {
      await worker.terminate();
      throw revive(ready.error);
    }
    return new PGliteWorkerClient(worker);
  }

  #call(message: Record<string, unknown>): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...message, id });
    });
  }

  #query(tx: number | undefined, sql: string, params: unknown[] = [], options: QueryOptions = {}) {
    return this.#call({
      op: "query",
      tx,
      sql,
      params,
      rowMode: options.rowMode,
      // Drizzle's parsers keep dates and intervals as the text PostgreSQL sent; the worker applies
      // the same ones (a function cannot be sent to another thread).
      textDates: options.parsers !== undefined,
      blob: options.blob,
    });
  }

  /**
   * The database runs one statement (or transaction) at a time, so what waits is a queue, and it
   * is kept here rather than in the worker. Organizations take turns (tenant-scope.ts): each has
   * its own queue, and the next statement comes from the next organization with work waiting, so
   * one tenant's flood of writes or reports delays another's call by at most one statement of
   * each busy tenant, never by everything it queued. Within one organization, work of the
   * serving path ("now": writes, small reads) goes before its dashboard reads ("later": reports,
   * exports, searches). Work outside any request (sign-ins, the webhook worker) is one more
   * tenant in the rotation.
   */
  readonly #waiting = new Map<string, Record<Priority, Turn[]>>();
  /** Tenants with work waiting, in the order they are served next. */
  readonly #rotation: string[] = [];
  #busy = false;

  #take<T>(priority: Priority, work: () => Promise<T>, abandoned?: () => boolean): Promise<T> {
    const tenant = currentTenant();
    return new Promise<T>((resolve, reject) => {
      let queues = this.#waiting.get(tenant);
      if (!queues) {
        queues = { now: [], later: [] };
        this.#waiting.set(tenant, queues);
        this.#rotation.push(tenant);
      }
      queues[priority].push({
        work,
        resolve: resolve as (v: unknown) => void,
        reject,
        abandoned: abandoned ?? (() => false),
      });
      this.#nextTurn();
    });
  }

  /** The next turn: the first waiting work of the tenant whose turn it is. */
  #dequeue(): Turn | undefined {
    const tenant = this.#rotation.shift();
    if (tenant === undefined) return undefined;
    const queues = this.#waiting.get(tenant);
    const turn = queues?.now.shift() ?? queues?.later.shift();
    if (queues && (queues.now.length || queues.later.length)) this.#rotation.push(tenant);
    else this.#waiting.delete(tenant);
    return turn;
  }

  #nextTurn() {
    if (this.#busy) return;
    const turn = this.#dequeue();
    if (!turn) return;
    // A caller that gave up while waiting (its read's time limit) is not run at all.
    if (turn.abandoned()) {
      turn.reject(timedOut());
      this.#nextTurn();
      return;
    }
    this.#busy = true;
    turn
      .work()
      .then(turn.resolve, turn.reject)
      .finally(() => {
        this.#busy = false;
        this.#nextTurn();
      });
  }

  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown> {
    return this.#take("now", () => this.#query(undefined, sql, params, options));
  }

  /** Runs a script of several statements (PGlite's `exec`), as operators' and benchmarks' SQL is
   * written; each statement's result, in order. */
  exec(sql: string): Promise<{ rows: unknown[] }[]> {
    return this.#take("now", () => this.#call({ op: "exec", sql }) as Promise<{ rows: unknown[] }[]>);
  }

  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#take("now", () => this.#transactionNow(fn));
  }

  async #transactionNow<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const { tx } = (await this.#call({ op: "begin" })) as { tx: number };
    const client: Queryable = { query: (sql, params, options) => this.#query(tx, sql, params, options) };
    let result: T;
    try {
      result = await fn(client);
    } catch (err) {
      await this.#call({ op: "end", tx, commit: false }).catch(() => {});
      throw err;
    }
    await this.#call({ op: "end", tx, commit: true });
    return result;
  }

  /**
   * The same database for dashboard reads: queued behind the serving path's work, and given up
   * after `ms` from the call — the caller gets PostgreSQL's statement-timeout error (57014). A
   * read still waiting then is dropped; one already running finishes in the worker (PGlite
   * cannot cancel a statement).
   */
  withTimeLimit(ms: number): Queryable & Pick<PGliteWorkerClient, "transaction"> {
    const limited = <T>(start: (abandoned: () => boolean) => Promise<T>): Promise<T> => {
      let late = false;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          late = true;
          reject(timedOut());
        }, ms);
      });
      return Promise.race([start(() => late), deadline]).finally(() => clearTimeout(timer));
    };
    return {
      query: (sql, params, options) =>
        limited((abandoned) =>
          this.#take("later", () => this.#query(undefined, sql, params, options), abandoned),
        ),
      transaction: (fn) =>
        limited((abandoned) => this.#take("later", () => this.#transactionNow(fn), abandoned)),
    };
  }

  /** Closes the database (it flushes its files) and ends the thread. */
  async close(): Promise<void> {
    if (this.#dead) return;
    await this.#call({ op: "close" }).catch(() => {});
    this.#dead = stopped("closed");
    await this.#worker.terminate();
  }
}
