// The serving thread's side of the embedded database's worker (pglite-worker.mjs): an object with
// the part of PGlite's interface Drizzle uses (query, transaction) that sends each statement to
// the worker and waits for its answer, so a long statement never blocks this thread's event loop.
import { Worker } from "node:worker_threads";

type QueryOptions = { rowMode?: "array" | "object"; parsers?: Record<number, unknown> };
type Answer = { id: number; ok: boolean; result?: unknown; error?: Record<string, unknown> };
type Pending = { resolve(value: unknown): void; reject(err: Error): void };

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
    });
  }

  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown> {
    return this.#query(undefined, sql, params, options);
  }

  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
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
   * The same database for reads that give up after `ms`: the caller gets PostgreSQL's
   * statement-timeout error (57014) while the statement itself runs to its end in the worker.
   */
  withTimeLimit(ms: number): Queryable & Pick<PGliteWorkerClient, "transaction"> {
    const limited = <T>(work: Promise<T>): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(timedOut()), ms);
      });
      return Promise.race([work, late]).finally(() => clearTimeout(timer));
    };
    return {
      query: (sql, params, options) => limited(this.query(sql, params, options)),
      transaction: (fn) =>
        this.transaction((tx) =>
          fn({ query: (sql, params, options) => limited(tx.query(sql, params, options)) }),
        ),
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
