import { fromNodeHeaders } from "better-auth/node";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { twoFactorChallengeCookies } from "../better-auth/adapter";
import { endStartedSession, startedSessionUser } from "../better-auth/started-session";
import type { IdentityContext } from "../context";
import { messagePage } from "../hosted-pages/html";
import { backToSignIn, pageKit, withRt } from "../hosted-pages/kit";
import { rt, rtQuery } from "../hosted-pages/schemas";
import { sendCookies } from "../http";
import { clientIp } from "../login/limits";
import { encodeReturnTarget } from "../return-target";
import { providerLabel, type SocialProviderId } from "./providers";

const START_PER_IP = { limit: 60, windowSeconds: 600 };

const providerParams = z.object({ provider: z.string().max(64) });
const errorQuery = z.object({
  rt,
  provider: z.string().max(64).optional(),
  error: z.string().max(256).optional(),
});
/**
 * The provider's answer, as better-auth reads it from the URL (and, for Apple's form post, the raw
 * body, which this scope passes through unparsed): each parameter one string.
 */
const callbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(4096).optional(),
  error: z.string().max(256).optional(),
});

/** What the user reads for better-auth's callback error codes. */
function errorText(code: string | undefined, label: string): string {
  switch (code) {
    case "access_denied":
      return `The sign-in with ${label} was cancelled.`;
    case "state_not_found":
    case "state_mismatch":
    case "state_invalid":
    case "please_restart_the_process":
      return `This sign-in with ${label} has expired or was started in another browser. Please start again.`;
    case "email_not_found":
      return `${label} did not share an email address with us, so we cannot sign you in with it.`;
    case "account_not_linked":
      return `An account with this email already exists. Sign in with your password, then try ${label} again.`;
    case "signup_disabled":
      return `There is no account for this ${label} user.`;
    case "banned":
    case "BANNED_USER":
      return "This account has been disabled.";
    default:
      return `The sign-in with ${label} could not be completed. Please try again.`;
  }
}

/**
 * Social sign-in: `/{provider}/login` (also `//{provider}/login`, as the PropelAuth client writes
 * it) starts better-auth's OAuth flow; better-auth's own handler serves only the provider's
 * callback, which creates the user and session and returns to the `rt` target.
 */
export const socialRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const kit = pageKit(ctx);
  const origin = ctx.config.authPublicUrl;
  const configured = ctx.socialProviders;
  const isConfigured = (id: string): id is SocialProviderId =>
    Object.hasOwn(configured, id) && configured[id as SocialProviderId] !== undefined;

  const notFound = (reply: FastifyReply, rt?: string) =>
    kit.send(reply, 404, messagePage("Page not found", "There is no such sign-in page.", backToSignIn(rt)));

  const errorPage = (reply: FastifyReply, status: number, label: string, code?: string, rt?: string) =>
    kit.send(
      reply,
      status,
      messagePage(`Sign-in with ${label} failed`, errorText(code, label), backToSignIn(rt)),
    );

  type StartReq = FastifyRequest<{
    Params: z.output<typeof providerParams>;
    Querystring: z.output<typeof rtQuery>;
  }>;
  const start = async (req: StartReq, reply: FastifyReply) => {
    const id = req.params.provider;
    const { rt } = req.query;
    const label = providerLabel(id);
    if (!label) return notFound(reply, rt);
    if (!isConfigured(id))
      return kit.send(
        reply,
        404,
        messagePage(
          `Sign-in with ${label} is not set up`,
          `Sign-in with ${label} is not set up for this installation. Sign in with your email and password instead.`,
          backToSignIn(rt),
        ),
      );
    // Each start stores a state row: bound the rows one client can create.
    const hit = await ctx.limiter.hit(`social:ip:${clientIp(req)}`, START_PER_IP);
    if (!hit.allowed) {
      reply.header("retry-after", String(hit.resetSeconds));
      return kit.send(
        reply,
        429,
        messagePage(
          "Too many attempts",
          "Too many sign-in attempts from this network. Please wait a few minutes.",
          backToSignIn(rt),
        ),
      );
    }
    try {
      const { headers, response } = await ctx.auth.api.signInSocial({
        body: {
          provider: id,
          callbackURL: kit.target(rt),
          errorCallbackURL: `${origin}${withRt(`/social/error?provider=${id}`, rt)}`,
        },
        headers: fromNodeHeaders(req.headers),
        returnHeaders: true,
      });
      if (!("url" in response) || !response.url) throw new Error("no authorization URL");
      sendCookies(reply, headers);
      return reply.header("cache-control", "no-store").redirect(response.url, 302);
    } catch (err) {
      req.log.error({ err, provider: id }, "social sign-in could not start");
      return kit.send(
        reply,
        502,
        messagePage(
          `Sign-in with ${label} failed`,
          `Sign-in with ${label} could not be started. Please try again later.`,
          backToSignIn(rt),
        ),
      );
    }
  };
  const startSchema = { schema: { params: providerParams, querystring: rtQuery } };
  app.get("/:provider/login", startSchema, start);
  app.get("//:provider/login", startSchema, start);

  app.get("/social/error", { schema: { querystring: errorQuery } }, async (req, reply) => {
    const { provider, error, rt } = req.query;
    const label = (provider && providerLabel(provider)) || "this provider";
    return errorPage(reply, 400, label, error, rt);
  });

  // better-auth's handler for the provider callbacks only, in a scope that passes the raw body
  // through (Apple posts a form; better-auth turns that post into a GET on the same path).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
    scope.withTypeProvider<ZodTypeProvider>().route({
      method: ["GET", "POST"],
      url: "/api/auth/callback/:provider",
      schema: { params: providerParams, querystring: callbackQuery },
      async handler(req, reply) {
        const id = req.params.provider;
        const label = providerLabel(id) ?? id;
        if (!isConfigured(id)) return notFound(reply);
        const headers = fromNodeHeaders(req.headers);
        // A cross-site form post carries no cookies of ours; anything else sent is not needed.
        if (req.method === "POST") headers.delete("cookie");
        const body =
          req.method === "POST" && Buffer.isBuffer(req.body) && req.body.length ? req.body : undefined;
        let res: Response;
        try {
          res = await ctx.auth.handler(
            new Request(new URL(req.url, origin), {
              method: req.method,
              headers,
              body: body ? new Uint8Array(body) : undefined,
            }),
          );
        } catch (err) {
          req.log.error({ err, provider: id }, "social sign-in callback failed");
          return errorPage(reply, 400, label);
        }
        const location = res.headers.get("location");
        if (res.status < 300 || res.status >= 400 || !location) {
          if (res.status >= 500)
            req.log.error({ status: res.status, provider: id }, "social sign-in callback failed");
          return errorPage(reply, 400, label);
        }
        const to = new URL(location, origin);
        // State that could not be read has no error page of its own: better-auth's default.
        if (to.origin === origin && to.pathname === "/api/auth/error") {
          sendCookies(reply, res.headers);
          const q = new URLSearchParams({ provider: id, error: to.searchParams.get("error") ?? "" });
          return reply.header("cache-control", "no-store").redirect(`/social/error?${q}`, 302);
        }
        const cookies = await holdForSecondFactor(ctx, res.headers.getSetCookie());
        if (cookies) {
          sendCookies(reply, cookies);
          const rt = encodeReturnTarget(to.href);
          return reply.header("cache-control", "no-store").redirect(withRt("/login/mfa", rt), 302);
        }
        sendCookies(reply, res.headers);
        return reply.header("cache-control", "no-store").redirect(to.href, 302);
      },
    });
  });
};

/**
 * better-auth does not ask for the second factor after a social sign-in. When the user has one,
 * the new session is ended at once and a two-factor challenge opened instead, as for a password
 * sign-in. Returns the cookies to send in that case, else null.
 */
async function holdForSecondFactor(ctx: IdentityContext, setCookies: string[]): Promise<string[] | null> {
  const signedIn = await startedSessionUser(ctx.auth, setCookies);
  if (!signedIn?.twoFactorEnabled) return null;
  return [
    ...(await endStartedSession(ctx.auth, setCookies)),
    ...(await twoFactorChallengeCookies(ctx.auth, signedIn.id)),
  ];
}
