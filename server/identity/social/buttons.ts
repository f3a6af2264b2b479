import { AsyncLocalStorage } from "node:async_hooks";
import type { FastifyInstance } from "fastify";
import { html, type SafeHtml } from "../hosted-pages/html";
import { withRt } from "../hosted-pages/kit";

type Button = { id: string; label: string };

// The hosted sign-in and sign-up pages are rendered in many places; rather than thread the
// configured providers through each of them, the identity app makes them ambient per request.
const current = new AsyncLocalStorage<readonly Button[]>();

/** Makes `providers` what socialButtons() lists while this app handles a request. */
export function provideSocialButtons(app: FastifyInstance, providers: readonly Button[]) {
  app.addHook("preHandler", (_req, _reply, done) => current.run(providers, done));
}

/** "Continue with X" links for the configured providers; nothing when none is configured. */
export function socialButtons(rt?: string): SafeHtml | string {
  const list = current.getStore() ?? [];
  if (!list.length) return "";
  return html`<div class="stack" style="margin-top:20px" aria-label="Other ways to sign in">
<p class="sub" style="margin:0;text-align:center">or</p>
${list.map((p) => html`<a class="button secondary" href="${withRt(`/${p.id}/login`, rt)}" data-provider="${p.id}">Continue with ${p.label}</a>`)}
</div>`;
}
