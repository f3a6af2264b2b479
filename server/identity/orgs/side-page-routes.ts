import type { FastifyInstance } from "fastify";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { withRt } from "../hosted-pages/kit";
import { validInput } from "../validation";
import { acceptInvite, findInvitation } from "./invites";
import { createOrg } from "./manage";
import { firstError, formOf, type PageKit } from "./page-kit";
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

/** The hosted pages around organizations: /create_org and /accept_invite. */
export function registerOrgSidePages(app: FastifyInstance, ctx: IdentityContext, kit: PageKit) {
  const { db } = ctx;

  // `rt` (the way back to the console) is kept through the form and onto the new organization's page.
  app.get<{ Querystring: { rt?: string } }>("/create_org", async (req, reply) => {
    if (!(await kit.actorOrNull(req))) return kit.toLogin(req, reply);
    const rt = kit.keptRt(req.query.rt);
    return kit.send(reply, 200, createOrgPage({ rt, returnUrl: kit.returnUrl(rt) }));
  });

  app.post<{ Querystring: { rt?: string } }>("/create_org", async (req, reply) => {
    const rt = kit.keptRt(req.query.rt);
    const back = { rt, returnUrl: kit.returnUrl(rt) };
    if (!kit.sameOrigin(req))
      return kit.send(
        reply,
        403,
        createOrgPage({ ...back, message: "This form was sent from another site." }),
      );
    const actor = await kit.actorOrNull(req);
    if (!actor) return reply.redirect(withRt("/login", rt), 303);
    const f = formOf(req.body);
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

  app.get<{ Querystring: { id?: string } }>("/accept_invite", async (req, reply) => {
    const inv = await findInvitation(ctx, String(req.query.id ?? ""));
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

  app.post<{ Querystring: { id?: string } }>("/accept_invite", async (req, reply) => {
    if (!kit.sameOrigin(req))
      return kit.send(reply, 403, acceptInvitePage({ kind: "invalid", consoleUrl: kit.consoleUrl }));
    const actor = await kit.actorOrNull(req);
    if (!actor) return kit.toLogin(req, reply);
    const inv = await findInvitation(ctx, String(req.query.id ?? ""));
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
  });
  // /saml (SAML set-up) is served by the saml module.
}
