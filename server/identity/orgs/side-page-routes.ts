import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { firstError, pageKit, withRt } from "../hosted-pages/kit";
import { field, noFields, rtQuery } from "../hosted-pages/schemas";
import { validInput } from "../validation";
import { acceptInvite, findInvitation } from "./invites";
import { createOrg } from "./manage";
import * as s from "./schemas";
import { acceptInvitePage, createOrgPage } from "./side-pages";

type OpenInvitation = NonNullable<Awaited<ReturnType<typeof findInvitation>>>;
type Actor = { email: string };

/** The invitation is for another address than the signed-in user's. */
const wrongUser = (inv: OpenInvitation, actor: Actor) =>
  acceptInvitePage({ kind: "wrong_user", orgName: inv.orgName, email: inv.email, signedInAs: actor.email });

/** The signed-in user may join: the confirmation form (with what went wrong, on a retry). */
const confirmJoin = (inv: OpenInvitation, actor: Actor, message?: string) =>
  acceptInvitePage({
    kind: "confirm",
    id: inv.id,
    orgName: inv.orgName,
    email: actor.email,
    role: inv.role,
    ...(message ? { message } : {}),
  });

const createOrgForm = z.object({ name: field, autojoin_by_domain: field, restrict_to_domain: field });
const invitationQuery = z.object({ id: z.string().max(4096).optional() });

/** The hosted pages around organizations: /create_org and /accept_invite. */
export const orgSidePages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const { db } = ctx;
  const kit = pageKit(ctx);

  // `rt` (the way back to the console) is kept through the form and onto the new organization's page.
  app.get("/create_org", { schema: { querystring: rtQuery } }, async (req, reply) => {
    if (!(await kit.actorOrNull(req))) return kit.toLogin(req, reply);
    const rt = kit.keptRt(req.query.rt);
    return kit.send(reply, 200, createOrgPage({ rt, returnUrl: kit.target(rt) }));
  });

  app.post("/create_org", { schema: { querystring: rtQuery, body: createOrgForm } }, async (req, reply) => {
    const rt = kit.keptRt(req.query.rt);
    const back = { rt, returnUrl: kit.target(rt) };
    const actor = await kit.actorOrNull(req);
    if (!actor) return reply.redirect(withRt("/login", rt), 303);
    const f = req.body;
    try {
      const body = validInput(s.createOrgBody, {
        name: f.name,
        autojoin_by_domain: f.autojoin_by_domain === "on",
        restrict_to_domain: f.restrict_to_domain === "on",
      });
      const { org_id } = await createOrg(db, actor, body);
      return reply.redirect(withRt(`/org?id=${encodeURIComponent(org_id)}&done=created`, rt), 303);
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err;
      const errors = err.code === "invalid_request_fields" ? { name: firstError(err) } : undefined;
      return kit.send(
        reply,
        err.status,
        createOrgPage({ ...back, values: f, errors, message: errors ? undefined : err.message }),
      );
    }
  });

  app.get("/accept_invite", { schema: { querystring: invitationQuery } }, async (req, reply) => {
    const inv = await findInvitation(ctx, req.query.id ?? "");
    if (inv?.state !== "open")
      return kit.send(reply, 404, acceptInvitePage({ kind: "invalid", consoleUrl: kit.consoleUrl }));
    const actor = await kit.actorOrNull(req);
    const here = kit.returnHere(req);
    if (!actor)
      return kit.send(
        reply,
        200,
        acceptInvitePage({
          kind: "sign_in",
          orgName: inv.orgName,
          email: inv.email,
          role: inv.role,
          loginUrl: `/login?rt=${here}`,
          signupUrl: `/signup?rt=${here}`,
        }),
      );
    if (actor.email !== inv.email.toLowerCase()) return kit.send(reply, 403, wrongUser(inv, actor));
    return kit.send(reply, 200, confirmJoin(inv, actor));
  });

  app.post(
    "/accept_invite",
    { schema: { querystring: invitationQuery, body: noFields } },
    async (req, reply) => {
      const actor = await kit.actorOrNull(req);
      if (!actor) return kit.toLogin(req, reply);
      const inv = await findInvitation(ctx, req.query.id ?? "");
      if (inv?.state !== "open")
        return kit.send(reply, 404, acceptInvitePage({ kind: "invalid", consoleUrl: kit.consoleUrl }));
      try {
        await acceptInvite(ctx, actor, inv.id);
        return reply.redirect(kit.consoleUrl, 303);
      } catch (err) {
        if (!(err instanceof IdentityError)) throw err;
        if (err.code === "action_forbidden") return kit.send(reply, 403, wrongUser(inv, actor));
        return kit.send(reply, err.status, confirmJoin(inv, actor, err.message));
      }
    },
  );
};
