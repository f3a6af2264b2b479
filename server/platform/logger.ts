import pino, { type DestinationStream } from "pino";

/**
 * What never reaches a log line: values of secret query parameters (sign-in, reset, confirmation,
 * unlock and magic links, OAuth codes, invitation ids), path segments that look like tokens,
 * credentials in headers, fields named like secrets, and the parameters of a failed statement
 * (they carry callers' data: emails, names, amounts). Every line goes through this, whatever
 * logged it: Fastify's request and error lines, our own, and text in messages.
 */
export const REDACTED = "[REDACTED]";

/** Query parameters whose values are secrets wherever they appear (compared lower-case). */
const SECRET_PARAMS = new Set([
  "token",
  "code",
  "state",
  "id_token",
  "access_token",
  "refresh_token",
  "password",
  "new_password",
  "current_password",
  "secret",
  "client_secret",
  "api_key",
  "api_key_token",
  "apikey",
  "key",
  "otp",
  "totp_code",
  "backup_code",
  "samlresponse",
  "samlrequest",
  "signature",
  "sig",
]);

/** Paths whose `id` parameter is itself a secret (an invitation link proves the mailbox). */
const SECRET_ID_PATHS = /(^|\/)(accept_invite|invite|invitation|unlock_account)\/?$/i;

/** Path segments after which the next segment is a secret (e.g. /reset-password/<token>). */
const SECRET_PARENTS =
  /^(invite|invitation|accept_invite|reset-password|reset_password|magic_link|magic-link|confirm_email|verify-email|unlock_account|token|tokens)$/i;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A segment that looks like a random token: long and URL-safe with mixed-case letters (base64url,
 * better-auth's ids), long hex, or a JWT. Slugs and UUIDs (lower case, words) stay readable.
 */
function looksLikeToken(segment: string): boolean {
  if (segment.length < 24 || UUID.test(segment)) return false;
  // Built asset names (billing-page-Dk3a9xQb.js) are no secrets.
  if (/\.(m?js|css|map|svg|png|ico|woff2?|json|html|txt)$/i.test(segment)) return false;
  if (/^[\w-]+\.[\w-]+\.[\w-]*$/.test(segment)) return true;
  if (/^[0-9a-f]{32,}$/i.test(segment)) return true;
  return /^[\w~%.-]+$/.test(segment) && /[a-z]/.test(segment) && /[A-Z]/.test(segment);
}

/** Paths with nothing to redact (most of them) are recognised with one test. */
const MAYBE_SECRET_PATH =
  /[^/]{24,}|\/(invite|invitation|accept_invite|reset|magic|confirm|verify|unlock|token)/i;

function redactPath(path: string): string {
  if (!MAYBE_SECRET_PATH.test(path)) return path;
  const parts = path.split("/");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (!p) continue;
    if ((i > 0 && SECRET_PARENTS.test(parts[i - 1] as string)) || looksLikeToken(p)) parts[i] = REDACTED;
  }
  return parts.join("/");
}

const MAYBE_SECRET_QUERY = new RegExp(`(?:^|&)(?:${[...SECRET_PARAMS].join("|")}|id)=|%`, "i");

function redactQuery(path: string, query: string): string {
  if (!MAYBE_SECRET_QUERY.test(query)) return query;
  const idIsSecret = SECRET_ID_PATHS.test(path);
  return query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      const lower = name.toLowerCase();
      return SECRET_PARAMS.has(lower) || (idIsSecret && lower === "id")
        ? `${pair.slice(0, eq)}=${REDACTED}`
        : pair;
    })
    .join("&");
}

/** A request URL (path and query, or absolute) with its secrets replaced by [REDACTED]. */
export function redactUrl(url: string): string {
  const hash = url.indexOf("#");
  const noHash = hash < 0 ? url : url.slice(0, hash);
  const q = noHash.indexOf("?");
  const path = q < 0 ? noHash : noHash.slice(0, q);
  const out = redactPath(path);
  return q < 0 ? out : `${out}?${redactQuery(path, noHash.slice(q + 1))}`;
}

const URLISH = /(?:https?:\/\/[^\s"'<>]+|\/[^\s"'<>]*\?[^\s"'<>]*|\/[^\s"'<>?]{24,})/g;
const INLINE_PARAM = /\b(token|code|password|secret|api_key|access_token|refresh_token)=([^\s&"'<>]+)/gi;

/** Free text (a message, an error, an email body) with every URL in it redacted. */
export function redactText(text: string): string {
  if (!text.includes("/") && !text.includes("=")) return text;
  return text.replace(URLISH, (m) => redactUrl(m)).replace(INLINE_PARAM, (_m, k) => `${k}=${REDACTED}`);
}

/** Header and field names whose values are credentials (compared lower-case). */
const SECRET_KEYS = new Set([
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-csrf-token",
  "proxy-authorization",
  "password",
  "newpassword",
  "new_password",
  "currentpassword",
  "current_password",
  "token",
  "secret",
  "auth_secret",
  "backend_api_key",
  "private_key",
  "privatepem",
  "api_key_token",
  "client_secret",
  "samlresponse",
]);

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Array.isArray(v));

/** A copy of a plain logged object with secret fields and URLs redacted (class instances pass). */
function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (value instanceof Error) return errSerializer(value);
  if (!isPlain(value) || depth > 5) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // req, res and err have serializers of their own (below).
    if (depth === 0 && (k === "req" || k === "res" || k === "err")) out[k] = v;
    else if (SECRET_KEYS.has(k.toLowerCase()) && v !== undefined && v !== null) out[k] = REDACTED;
    else out[k] = redactValue(v, depth + 1);
  }
  return out;
}

type LoggedRequest = {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
  headers?: Record<string, unknown>;
};

/** Fastify's request line, with the URL redacted and no headers. */
function reqSerializer(req: LoggedRequest) {
  return {
    method: req.method,
    url: typeof req.url === "string" ? redactUrl(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * Fields of a database error that carry a failed statement's values: its parameters (Drizzle's
 * `params`, PGlite's `params` and `queryOptions`, other drivers' `parameters`) and PostgreSQL's
 * `detail` ("Key (email)=(…) already exists", "Failing row contains (…)").
 */
const STATEMENT_VALUE_KEYS = new Set(["params", "parameters", "queryoptions", "detail"]);

/**
 * The texts a failed statement's parameters appear as in its errors' messages and stacks: Drizzle
 * writes "params: a,b,c" into its message, and PostgreSQL quotes a value it could not read.
 */
function statementValues(err: Error): string[] {
  const out: string[] = [];
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    for (const key of ["params", "parameters"]) {
      const params = (e as Record<string, unknown>)[key];
      if (!Array.isArray(params) || !params.length) continue;
      out.push(`params: ${String(params)}`);
      for (const p of params) {
        const text = p instanceof Date ? p.toISOString() : String(p);
        if (p !== null && p !== undefined && text.length >= 4) out.push(text);
      }
    }
    e = (e as Error).cause;
  }
  // Longest first: "params: a,b" goes whole before its parts.
  return out.sort((a, b) => b.length - a.length);
}

function withoutValues(text: string, values: string[]): string {
  let out = text;
  for (const v of values) out = out.split(v).join(v.startsWith("params: ") ? "params: [REDACTED]" : REDACTED);
  return out;
}

function errSerializer(err: Error) {
  const s = pino.stdSerializers.err(err) as Record<string, unknown>;
  if (!s || typeof s !== "object") return s;
  const values = statementValues(err);
  for (const [k, v] of Object.entries(s)) {
    if (k === "raw") continue;
    if (STATEMENT_VALUE_KEYS.has(k.toLowerCase())) delete s[k];
    else if (typeof v === "string") s[k] = redactText(withoutValues(v, values));
    else if (SECRET_KEYS.has(k.toLowerCase())) s[k] = REDACTED;
    else if (isPlain(v)) s[k] = redactValue(v, 1);
  }
  return s;
}

/** JSON logs on stdout (one object per line), as log collectors expect; secrets redacted. */
export function createLogger(level: string, destination?: DestinationStream) {
  return pino(
    {
      level,
      base: { service: "eval-console" },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { req: reqSerializer, err: errSerializer },
      hooks: {
        logMethod(args, method) {
          const redacted = (args as unknown[]).map((a) => redactValue(a));
          return method.apply(this, redacted as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
