import { createFrontendApisClient } from "@propelauth/frontend-apis";
import { desc, eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { emailOutbox } from "../../server/db/schema";
import { AUTH, CONSOLE, type TestProduct } from "./harness";

// A tiny "browser" for driving the unmodified PropelAuth frontend client over real HTTP: the
// client calls the global fetch, so each browser swaps in a fetch with its own cookie jar (and
// its own client address, via X-Forwarded-For, so per-IP limits can be exercised per test: start
// the product with TRUST_PROXY=loopback for that). Like a real browser it sends an Origin: the
// console's on identity client calls (/api/...), the identity service's own on its hosted forms.

const realFetch = globalThis.fetch;

/** The client's result, loosely typed for assertions: `data` on success, `error` otherwise. */
export type ClientResult = {
  ok: boolean;
  data?: Record<string, unknown> & { login_state?: string };
  error?: Record<string, unknown> & { error_code: string };
};

export class Browser {
  readonly jar = new Map<string, string>();
  constructor(
    readonly origin: string,
    readonly ip = "198.51.100.7",
  ) {}

  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set("cookie", [...this.jar].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("x-forwarded-for", this.ip);
    const path = new URL(input instanceof Request ? input.url : input).pathname;
    if (!headers.has("origin")) headers.set("origin", path.startsWith("/api/") ? CONSOLE : AUTH);
    const res = await realFetch(input, { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || pair.slice(i + 1) === "";
      if (gone) this.jar.delete(name);
      else this.jar.set(name, pair.slice(i + 1));
    }
    return res;
  };

  /** Runs `fn` with the PropelAuth frontend client bound to this browser's cookies. */
  async api(fn: (c: ReturnType<typeof createFrontendApisClient>) => Promise<unknown>): Promise<ClientResult> {
    const previous = globalThis.fetch;
    globalThis.fetch = this.fetch as typeof fetch;
    try {
      return (await fn(
        createFrontendApisClient({ authUrl: this.origin, baseApiUrl: this.origin }),
      )) as ClientResult;
    } finally {
      globalThis.fetch = previous;
    }
  }

  /** What @propelauth/javascript's refresh call returns: the auth response or a 401. */
  async refresh() {
    const res = await this.fetch(`${this.origin}/api/v1/refresh_token`, {
      headers: { "content-type": "application/json" },
    });
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown> & { user?: Record<string, unknown> },
    };
  }
}

export async function listen(p: TestProduct): Promise<string> {
  await p.identity.app.listen({ port: 0, host: "127.0.0.1" });
  const addr = p.identity.app.server.address();
  if (!addr || typeof addr === "string") throw new Error("no address");
  return `http://127.0.0.1:${addr.port}`;
}

/** The token in the newest email of `kind` sent to `to`, read from the outbox table. */
export async function emailToken(p: TestProduct, to: string, kind: string): Promise<string> {
  const rows = await p.database.db
    .select()
    .from(emailOutbox)
    .where(eq(emailOutbox.to, to))
    .orderBy(desc(emailOutbox.createdAt));
  const mail = rows.find((r) => r.kind === kind);
  const token = mail?.text.match(/[?&]token=([^\s&]+)/)?.[1];
  if (!token) throw new Error(`no ${kind} email for ${to}`);
  return decodeURIComponent(token);
}

export const countEmails = async (p: TestProduct, to: string, kind: string) =>
  (await p.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, to))).filter(
    (r) => r.kind === kind,
  ).length;

export const totp = (secret: string) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
