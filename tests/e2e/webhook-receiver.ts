import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { WEBHOOK_SIGNATURE_HEADER } from "../../contract/budgets";
import { type VerifyResult, verifySignature } from "../../server/webhooks/signature";

// A real webhook receiver for tests: an HTTP server on 127.0.0.1 and a free port that records
// every request and answers with the status `respond` picks (200 by default). The product under
// test must allow private URLs (WEBHOOK_ALLOW_PRIVATE_URLS=true) to reach it.

export type ReceivedWebhook = {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as it came (what the signature covers). */
  body: string;
  /** The body parsed (null when it is not JSON). */
  json: { id?: string; type?: string; data?: Record<string, unknown> } | null;
  at: number;
};

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

export async function startWebhookReceiver(
  opts: { respond?: (req: ReceivedWebhook, n: number) => number | Promise<number> } = {},
) {
  const received: ReceivedWebhook[] = [];
  let respond = opts.respond ?? (() => 200);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: ReceivedWebhook["json"] = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const r: ReceivedWebhook = { path: req.url ?? "/", headers: req.headers, body, json, at: Date.now() };
      received.push(r);
      const status = await respond(r, received.length);
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `error ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Changes the status answered from now on. */
    setRespond(fn: (req: ReceivedWebhook, n: number) => number | Promise<number>) {
      respond = fn;
    },
    /** Waits until `count` requests matching `match` arrived (default: any), or throws after `timeoutMs`. */
    async waitFor(count = 1, match: (r: ReceivedWebhook) => boolean = () => true, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hits = received.filter(match);
        if (hits.length >= count) return hits;
        if (Date.now() > until)
          throw new Error(
            `webhook receiver: ${hits.length} of ${count} expected requests after ${timeoutMs} ms`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    /** Checks a received request's signature with the endpoint's secret. */
    verify(r: ReceivedWebhook, secret: string): VerifyResult {
      return verifySignature(secret, r.body, r.headers[WEBHOOK_SIGNATURE_HEADER] as string | undefined);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
