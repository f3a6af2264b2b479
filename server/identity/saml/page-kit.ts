import type { FastifyReply } from "fastify";
import type { IdentityContext } from "../context";
import { pageKit } from "../hosted-pages/kit";
import { samlMessagePage } from "./pages";

/**
 * The hosted-page kit as the SAML pages use it: every refusal or notice of theirs is a message
 * page whose one way out is the console.
 */
export function samlPageKit(ctx: IdentityContext) {
  const kit = pageKit(ctx);
  const toConsole = { href: kit.consoleUrl, label: "Go to the console" };
  const message = (reply: FastifyReply, status: number, title: string, text: string) =>
    kit.send(reply, status, samlMessagePage(title, text, toConsole));
  return { kit, toConsole, message };
}
