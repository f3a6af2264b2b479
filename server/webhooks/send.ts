import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { parseWebhookUrl, resolveWebhookHost, WebhookUrlError } from "./url-guard";

/** An attempt is abandoned after this long, connection and answer included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** At most this much of an answer's body (or of an error) is kept in the delivery log. */
export const MAX_KEPT_RESPONSE = 1024;

export type AttemptResult = {
  /** A 2xx answer. */
  ok: boolean;
  /** The answer's status; null when there was none (refused URL, network error, timeout). */
  statusCode: number | null;
  /** Why it failed, or the start of a non-2xx answer's body; null on success. */
  error: string | null;
};

const bounded = (s: string) => (s.length > MAX_KEPT_RESPONSE ? s.slice(0, MAX_KEPT_RESPONSE) : s);

/**
 * POSTs `body` to `url` once: redirects are not followed (a 3xx is a failure), the answer's body
 * is read up to 1 kB, and the connection goes to the address the SSRF guard checked (the custom
 * `lookup`), while TLS still verifies the certificate for the URL's host name.
 */
export async function postWebhook(opts: {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivate: boolean;
  timeoutMs?: number;
}): Promise<AttemptResult> {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = Date.now();
  let target: { address: string; family: 4 | 6 };
  let url: URL;
  let dnsTimer: NodeJS.Timeout | undefined;
  try {
    url = parseWebhookUrl(opts.url);
    // A name that never resolves must not hold the attempt past its timeout either.
    const slowDns = new Promise<never>((_, reject) => {
      dnsTimer = setTimeout(
        () => reject(new WebhookUrlError(`No answer within ${timeoutMs / 1000} s.`)),
        timeoutMs,
      );
    });
    target = await Promise.race([resolveWebhookHost(url, opts.allowPrivate), slowDns]);
  } catch (err) {
    if (err instanceof WebhookUrlError) return { ok: false, statusCode: null, error: bounded(err.message) };
    throw err;
  } finally {
    clearTimeout(dnsTimer);
  }
  const remainingMs = Math.max(1, timeoutMs - (Date.now() - started));
  const lookup: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as (e: null, a: object[]) => void)(null, [target]);
    else cb(null, target.address, target.family);
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...opts.headers, "content-length": Buffer.byteLength(opts.body).toString() },
        lookup,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          const text = Buffer.concat(chunks).subarray(0, MAX_KEPT_RESPONSE).toString("utf8");
          const ok = status >= 200 && status < 300;
          const redirect = status >= 300 && status < 400;
          const error = ok
            ? null
            : redirect
              ? `Redirect to ${res.headers.location ?? "(no location)"} not followed.`
              : text || `HTTP ${status}`;
          done({ ok, statusCode: status, error: error === null ? null : bounded(error) });
          res.destroy();
        };
        res.on("data", (chunk: Buffer) => {
          if (size < MAX_KEPT_RESPONSE) chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_KEPT_RESPONSE) finish();
        });
        res.on("end", finish);
        res.on("error", finish);
      },
    );
    const timer = setTimeout(() => {
      done({ ok: false, statusCode: null, error: `No answer within ${timeoutMs / 1000} s.` });
      req.destroy();
    }, remainingMs);
    req.on("error", (err) =>
      done({ ok: false, statusCode: null, error: bounded(err.message || String(err)) }),
    );
    req.end(opts.body);
  });
}
