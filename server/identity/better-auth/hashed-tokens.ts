import { createHash } from "node:crypto";
import type { DBAdapter, DBTransactionAdapter, Where } from "better-auth";
import { sql } from "drizzle-orm";
import type { Db } from "../../platform/database";

/**
 * Session tokens at rest: identity.session.token holds only the SHA-256 (hex) of the token, so
 * someone who can read the database cannot present a session. The cookie still carries the raw
 * token; this wrapper around better-auth's database adapter hashes it on the way in (create, and
 * every lookup, update or delete by token) and puts the caller's raw token back on the rows it
 * was asked for. Rows found by other fields (a user's sessions) carry the digest only.
 */

/** SHA-256 hex of a bearer-like token (random, 32+ bytes: no salt or stretching needed). */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const SESSION = "session";
const TOKEN = "token";

type Row = Record<string, unknown>;
type AnyAdapter = DBAdapter | DBTransactionAdapter;

/** The where clauses with every token value hashed, and digest → raw token for the answer. */
function hashWhere(where: Where[] | undefined) {
  const raw = new Map<string, string>();
  const hashed = where?.map((w) => {
    if (w.field !== TOKEN) return w;
    const op = w.operator ?? "eq";
    if (op !== "eq" && op !== "ne" && op !== "in" && op !== "not_in")
      throw new Error(`session tokens are stored hashed: "${op}" on token is not supported`);
    const one = (v: unknown) => {
      if (typeof v !== "string") return v;
      const h = hashToken(v);
      raw.set(h, v);
      return h;
    };
    return { ...w, value: (Array.isArray(w.value) ? w.value.map(one) : one(w.value)) as Where["value"] };
  });
  return { where: hashed, raw };
}

function restore<T>(row: T, raw: Map<string, string>): T {
  if (!row || typeof row !== "object") return row;
  const r = row as Row;
  const token = typeof r[TOKEN] === "string" ? raw.get(r[TOKEN] as string) : undefined;
  return (token ? { ...r, [TOKEN]: token } : row) as T;
}

function hashData<T>(data: T): T {
  const d = data as Row;
  return (typeof d?.[TOKEN] === "string" ? { ...d, [TOKEN]: hashToken(d[TOKEN] as string) } : data) as T;
}

function wrap<A extends AnyAdapter>(inner: A): A {
  const isSession = (model: string) => model === SESSION;
  const wrapped: AnyAdapter = {
    ...inner,
    create: async <T extends Row, R = T>(args: {
      model: string;
      data: Omit<T, "id">;
      select?: string[];
      forceAllowId?: boolean;
    }) => {
      if (!isSession(args.model)) return inner.create<T, R>(args);
      const token = (args.data as Row)[TOKEN];
      const row = await inner.create<T, R>({ ...args, data: hashData(args.data) });
      return typeof token === "string" ? restore(row, new Map([[hashToken(token), token]])) : row;
    },
    findOne: async (args) => {
      if (!isSession(args.model)) return inner.findOne(args);
      const { where, raw } = hashWhere(args.where);
      return restore(await inner.findOne({ ...args, where: where ?? [] }), raw);
    },
    findMany: async <T>(args: Parameters<AnyAdapter["findMany"]>[0]) => {
      if (!isSession(args.model)) return inner.findMany<T>(args);
      const { where, raw } = hashWhere(args.where);
      const rows = await inner.findMany<T>({ ...args, where });
      return rows.map((r) => restore(r, raw));
    },
    count: async (args) => {
      if (!isSession(args.model)) return inner.count(args);
      return inner.count({ ...args, where: hashWhere(args.where).where });
    },
    update: async (args) => {
      if (!isSession(args.model)) return inner.update(args);
      const { where, raw } = hashWhere(args.where);
      return restore(await inner.update({ ...args, where: where ?? [], update: hashData(args.update) }), raw);
    },
    updateMany: async (args) => {
      if (!isSession(args.model)) return inner.updateMany(args);
      const { where } = hashWhere(args.where);
      return inner.updateMany({ ...args, where: where ?? [], update: hashData(args.update) });
    },
    delete: async (args) => {
      if (!isSession(args.model)) return inner.delete(args);
      return inner.delete({ ...args, where: hashWhere(args.where).where ?? [] });
    },
    deleteMany: async (args) => {
      if (!isSession(args.model)) return inner.deleteMany(args);
      return inner.deleteMany({ ...args, where: hashWhere(args.where).where ?? [] });
    },
    consumeOne: async (args) => {
      if (!isSession(args.model)) return inner.consumeOne(args);
      const { where, raw } = hashWhere(args.where);
      return restore(await inner.consumeOne({ ...args, where: where ?? [] }), raw);
    },
    incrementOne: async (args) => {
      if (!isSession(args.model)) return inner.incrementOne(args);
      const { where, raw } = hashWhere(args.where);
      return restore(
        await inner.incrementOne({ ...args, where: where ?? [], set: args.set && hashData(args.set) }),
        raw,
      );
    },
  };
  if ("transaction" in inner && typeof inner.transaction === "function") {
    const tx = inner.transaction.bind(inner);
    (wrapped as DBAdapter).transaction = (cb) => tx((trx) => cb(wrap(trx)));
  }
  return wrapped as A;
}

/** Wraps a better-auth adapter factory (e.g. drizzleAdapter(...)) so session tokens are stored hashed. */
export function hashedSessionTokens<O, A extends DBAdapter>(factory: (options: O) => A): (options: O) => A {
  return (options) => wrap(factory(options));
}

/**
 * Sessions stored before tokens were hashed: their tokens are hashed in place (a raw token has
 * 32 characters, a digest 64), so the users stay signed in. Idempotent; run at start.
 */
export async function hashLegacySessionTokens(db: Db): Promise<void> {
  await db.execute(
    sql`update identity.session set token = encode(sha256(convert_to(token, 'UTF8')), 'hex') where length(token) <> 64`,
  );
}
