// The embedded database's own thread. PGlite runs PostgreSQL compiled to WebAssembly: a statement
// holds the thread it runs on until it ends, and a report over a year of events can take seconds.
// Here that thread is this worker, not the one serving HTTP, so sign-in pages, health checks and
// every other call keep answering while it works. The serving thread talks to it through
// messages (server/platform/pglite-proxy.ts); PGlite itself still runs one statement at a time.
//
// Plain JavaScript on purpose: a worker is started from a file path, and this one must load the
// same way under the TypeScript runner, the test runner and the built server.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, types } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

if (!parentPort) throw new Error("pglite-worker.mjs runs as a worker thread");
const port = parentPort;

// Drizzle reads these types as the text PostgreSQL sent (its own parsers decide what they become);
// a parser cannot cross threads, so the proxy asks for them by this flag instead.
const asText = (value) => value;
const TEXT_PARSERS = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map(
    (oid) => [oid, asText],
  ),
);

/** An error as plain data: PostgreSQL's fields (code, detail, constraint…) survive the crossing. */
function plainError(err) {
  const out = { name: err?.name ?? "Error", message: String(err?.message ?? err) };
  if (err && typeof err === "object")
    for (const [k, v] of Object.entries(err))
      if (["string", "number", "boolean"].includes(typeof v)) out[k] = v;
  return out;
}

const reply = (id, result) => port.postMessage({ id, ok: true, result });
const fail = (id, err) => port.postMessage({ id, ok: false, error: plainError(err) });

let db;
try {
  const options = { extensions: { pg_trgm } };
  db = workerData.dataDir ? await PGlite.create(workerData.dataDir, options) : await PGlite.create(options);
} catch (err) {
  port.postMessage({ ready: false, error: plainError(err) });
  process.exit(1);
}

/** Open transactions: id → the transaction's query function and how to end it. */
const transactions = new Map();
let nextTransaction = 1;

function options(msg) {
  return {
    rowMode: msg.rowMode ?? "object",
    ...(msg.textDates ? { parsers: TEXT_PARSERS } : {}),
    ...(msg.blob ? { blob: msg.blob } : {}),
  };
}

async function query(msg) {
  const target = msg.tx ? transactions.get(msg.tx)?.tx : db;
  if (!target) throw new Error("The transaction has already ended.");
  return target.query(msg.sql, msg.params ?? [], options(msg));
}

const ROLLBACK = Symbol("rollback");

/**
 * Opens a transaction and answers `id` with its number once it has begun; it stays open (PGlite
 * runs nothing else meanwhile) until an "end" message commits or rolls it back, and that message
 * is answered when it has.
 */
function begin(id) {
  const tx = nextTransaction++;
  let end;
  const ended = new Promise((resolve) => {
    end = resolve;
  });
  let endId;
  db.transaction(async (t) => {
    transactions.set(tx, { tx: t, end });
    reply(id, { tx });
    const request = await ended;
    endId = request.id;
    if (!request.commit) throw ROLLBACK;
  }).then(
    () => {
      transactions.delete(tx);
      reply(endId, null);
    },
    (err) => {
      transactions.delete(tx);
      if (err === ROLLBACK) reply(endId, null);
      // The commit failed (answered to the end message), or BEGIN did (answered to begin).
      else fail(endId ?? id, err);
    },
  );
}

port.on("message", async (msg) => {
  try {
    if (msg.op === "query") reply(msg.id, await query(msg));
    else if (msg.op === "exec")
      reply(
        msg.id,
        (await db.exec(msg.sql)).map((r) => ({ rows: r.rows })),
      );
    else if (msg.op === "begin") begin(msg.id);
    else if (msg.op === "end") {
      const open = transactions.get(msg.tx);
      if (!open) return reply(msg.id, null);
      open.end({ commit: msg.commit, id: msg.id });
    } else if (msg.op === "close") {
      await db.close();
      reply(msg.id, null);
      port.close();
    } else fail(msg.id, new Error(`unknown operation ${msg.op}`));
  } catch (err) {
    fail(msg.id, err);
  }
});

port.postMessage({ ready: true });
