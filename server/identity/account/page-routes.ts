import { applySetCookies } from "better-auth/cookies";
import { fromNodeHeaders } from "better-auth/node";
import { and, eq } from "drizzle-orm";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { account, user } from "../../db/schema/index";
import { createApiKeyService } from "../api-keys/service";
import { isExpirationOption } from "../api-keys/token";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import type { SessionUser } from "../fe/plumbing";
import { messagePage } from "../hosted-pages/html";
import { asPageError, type FormValues, fieldErrors, pageKit } from "../hosted-pages/kit";
import { field, rtQuery } from "../hosted-pages/schemas";
import { sendCookies } from "../http";
import { keyActorOf, refuseKeyCreationWhileImpersonating } from "../impersonation/writes";
import { type FreshFactor, freshFactorBody } from "../mfa/factor";
import { backupCodes, currentPendingSecret } from "../mfa/setup";
import { type accountPage as AccountPageFn, accountPage } from "./pages";
import * as s from "./schemas";
import * as acc from "./service";

type Extra = Partial<Parameters<typeof AccountPageFn>[0]>;

const profileForm = s.updateMetadataBody.pick({ first_name: true, last_name: true, username: true });
const emailForm = z.object({
  new_email: s.updateEmailBody.shape.new_email,
  password: z.string().max(128).optional(),
});
const passwordForm = z.object({
  password: s.updatePasswordBody.shape.password,
  current_password: z.string().max(128).optional(),
});

/**
 * The hosted form's confirmation: one "code" field takes a code from the app (six digits) or a
 * backup code; the password field is the alternative for accounts that have one.
 */
function factorOf(v: FormValues): FreshFactor {
  const code = (v.code ?? "").trim();
  const password = v.mfa_password ?? "";
  if (code) return freshFactorBody.parse(/^\d{6}$/.test(code) ? { code } : { backup_code: code });
  return freshFactorBody.parse(password ? { password } : {});
}

/** Every field the account page's forms post; each action reads its own. */
const accountForm = z.object({
  first_name: field,
  last_name: field,
  username: field,
  new_email: field,
  password: field,
  current_password: field,
  code: field,
  mfa_password: field,
  expiration_option: field,
  api_key_id: field,
  confirm: field,
});

/** The hosted /account page and its form actions (each keeps `rt`). */
export const accountPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const kit = pageKit(ctx);
  const keys = createApiKeyService(ctx.db, ctx.directory);

  async function render(
    req: FastifyRequest,
    reply: FastifyReply,
    rt: string | undefined,
    extra: Extra = {},
    status = 200,
  ) {
    const session = await ctx.auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
    if (!session) return reply.redirect(kit.loginUrlBackTo("/account", rt), 303);
    const id = session.user.id;
    const [u] = await ctx.db.select().from(user).where(eq(user.id, id));
    if (!u) return reply.redirect(kit.loginUrlBackTo("/account", rt), 303);
    const [cred] = await ctx.db
      .select({ p: account.password })
      .from(account)
      .where(and(eq(account.userId, id), eq(account.providerId, "credential")));
    const orgs = await ctx.directory.listMemberships(id);
    const mfa = u.twoFactorEnabled
      ? { enabled: true as const, backupCodesLeft: (await backupCodes(ctx, id)).length }
      : { enabled: false as const, ...(await currentPendingSecret(ctx, id, u.email)) };
    const listed = await keys.listPersonal(id, { offset: 0, pageSize: 50, pageNumber: 0 });
    const view = {
      rt,
      returnUrl: kit.target(rt),
      email: u.email,
      firstName: u.firstName ?? "",
      lastName: u.lastName ?? "",
      username: u.username ?? "",
      hasPassword: Boolean(cred?.p),
      orgs: orgs.map((o) => ({ name: o.orgName, role: o.role })),
      mfa,
      apiKeys: listed.api_keys.map((k) => ({
        id: k.api_key_id,
        createdAt: k.created_at,
        expiresAt: k.expires_at_seconds,
      })),
      ...extra,
    };
    return kit.send(reply, status, accountPage(view));
  }

  app.get("/account", { schema: { querystring: rtQuery } }, async (req, reply) =>
    render(req, reply, req.query.rt),
  );

  /** One form action: same-origin and signed-in checks, then `run`; errors shown in its section. */
  const action = (
    path: string,
    section: string,
    run: (
      req: FastifyRequest,
      reply: FastifyReply,
      v: FormValues,
      session: SessionUser,
    ) => Promise<Extra | "done">,
  ) =>
    app.post(path, { schema: { querystring: rtQuery, body: accountForm } }, async (req, reply) => {
      const { rt } = req.query;
      const values = req.body;
      const session = await acc.requireSessionForPage(ctx, req);
      if (!session) return reply.redirect(kit.loginUrlBackTo("/account", rt), 303);
      try {
        const extra = await run(req, reply, values, session);
        if (extra === "done") return reply;
        return render(req, reply, rt, { section, ...extra });
      } catch (err) {
        if (err instanceof z.ZodError)
          return render(req, reply, rt, { section, values, errors: fieldErrors(err) }, 400);
        const e = asPageError(err);
        return render(req, reply, rt, { section, values, errors: e.errors, message: e.message }, e.status);
      }
    });

  action("/account/profile", "profile", async (_req, _reply, v, session) => {
    await acc.updateMetadata(ctx, session, profileForm.parse(v));
    return { notice: "Profile saved." };
  });
  action("/account/email", "email", async (req, _reply, v, session) => {
    const f = emailForm.parse(v);
    await acc.updateEmail(ctx, req, session, f.new_email, f.password || undefined);
    return { notice: `We sent a confirmation link to ${f.new_email}. Your email changes when you open it.` };
  });
  action("/account/password", "password", async (req, reply, v, session) => {
    const f = passwordForm.parse(v);
    const cookies = await acc.updatePassword(ctx, req, session, f.password, f.current_password || undefined);
    sendCookies(reply, cookies);
    return { notice: "Password changed. Other devices were signed out." };
  });
  action("/account/mfa/enable", "mfa", async (req, reply, v, session) => {
    const cookies = await acc.enableMfa(ctx, req, session, s.mfaEnableBody.parse(v).code);
    sendCookies(reply, cookies);
    // The session was rotated: render from the new cookie, showing the backup codes this once.
    const sent = fromNodeHeaders(req.headers);
    applySetCookies(sent, cookies);
    req.headers.cookie = sent.get("cookie") ?? undefined;
    return {
      notice: "Two-factor authentication is on.",
      newBackupCodes: await backupCodes(ctx, session.user.id),
    };
  });
  action("/account/mfa/disable", "mfa", async (req, _reply, v, session) => {
    await acc.turnOffMfa(ctx, req, session, factorOf(v));
    return { notice: "Two-factor authentication is off." };
  });
  action("/account/mfa/backup_codes", "mfa", async (req, _reply, v, session) => {
    const codes = await acc.regenerateBackupCodes(ctx, req, session, factorOf(v));
    return { notice: "New backup codes made. The old ones no longer work.", newBackupCodes: codes };
  });
  action("/account/api_keys", "api-keys", async (_req, _reply, v, session) => {
    refuseKeyCreationWhileImpersonating(session);
    const raw = v.expiration_option || "OneYear";
    if (!isExpirationOption(raw))
      throw new IdentityError("invalid_request_fields", undefined, {
        expiration_option: "Choose one of the listed expiry options.",
      });
    const expiration = raw;
    const created = await keys.create(keyActorOf(session), { expiration });
    return {
      notice: "API key created. Copy it now: it is not shown again.",
      newApiKey: created.api_key_token,
    };
  });
  action("/account/api_keys/delete", "api-keys", async (_req, _reply, v, session) => {
    await keys.delete(keyActorOf(session), v.api_key_id ?? "");
    return { notice: "API key deleted." };
  });
  action("/account/delete", "delete", async (req, reply, v) => {
    if (v.confirm !== "DELETE") return { errors: { confirm: 'Type "DELETE" to confirm.' }, values: v };
    const cookies = await acc.deleteMe(ctx, req);
    sendCookies(reply, cookies);
    kit.send(
      reply,
      200,
      messagePage("Account deleted", "Your account has been deleted.", {
        href: "/signup",
        label: "Create a new account",
      }),
    );
    return "done";
  });
};
