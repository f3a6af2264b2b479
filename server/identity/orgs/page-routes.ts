import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ROLE_HIERARCHY } from "../../../contract/role-hierarchy";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { messagePage } from "../hosted-pages/html";
import { type FormValues, firstError, pageKit, withRt } from "../hosted-pages/kit";
import { field, rt, rtQuery } from "../hosted-pages/schemas";
import { validInput } from "../validation";
import { type Actor, orgAccess } from "./access";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation, updateOrgSettings } from "./actions";
import { orgPageData } from "./page-data";
import { type OrgSection, orgPage } from "./pages";
import * as s from "./schemas";

/** Notices after a successful action, keyed so the page never echoes text from the URL. */
const DONE: Record<string, string> = {
  invited: "Invitation sent.",
  role: "Role changed.",
  removed: "Member removed.",
  revoked: "Invitation revoked.",
  settings: "Settings saved.",
  created: "Organization created.",
};

/** A form's role choice; additional roles come as one checkbox per role (a form body keeps one value per name). */
const roleChoiceOf = (f: FormValues) => ({
  role: f.role,
  additional_roles: ROLE_HIERARCHY.filter((r) => f[`additional_${r}`] === "on"),
});

const orgQuery = z.object({
  id: z.string().max(4096).optional(),
  q: z.string().max(4096).optional(),
  page: z.string().max(32).optional(),
  done: z.string().max(32).optional(),
  rt,
});

/** The fields the /org page's forms post; additional roles come as one `additional_<role>` checkbox each. */
const orgForm = z
  .object({
    org_id: field,
    user_id: field,
    email: field,
    role: field,
    name: field,
    autojoin_by_domain: field,
    restrict_to_domain: field,
  })
  .catchall(z.string());

/** The hosted organization page /org and its form actions (/create_org, /accept_invite: side-page-routes.ts). */
export const orgPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const { db } = ctx;
  const kit = pageKit(ctx);
  const { send } = kit;
  const notMember = (reply: FastifyReply, rt?: string) =>
    send(
      reply,
      404,
      messagePage("Organization not found", "You are not a member of this organization.", {
        href: kit.target(rt),
        label: "Go to the console",
      }),
    );

  async function renderOrg(
    reply: FastifyReply,
    actor: Actor,
    orgId: string,
    extra: {
      status?: number;
      notice?: string;
      section?: OrgSection;
      error?: string;
      values?: FormValues;
      search?: string;
      page?: number;
      rt?: string;
    },
  ) {
    const access = await orgAccess(db, actor, orgId);
    const view = await orgPageData(db, access, { search: extra.search ?? "", page: extra.page ?? 0 });
    view.rt = extra.rt;
    view.returnUrl = kit.target(extra.rt);
    view.notice = extra.notice;
    if (extra.section) view.errors = { [extra.section]: extra.error };
    if (extra.values) view.values = { email: extra.values.email, role: extra.values.role };
    return send(reply, extra.status ?? 200, orgPage(view));
  }

  // /org?id=… opens that organization; /org alone opens the user's active organization: the first
  // they joined, the one the console and the product API act in. `rt` is the way back to the
  // console, kept on every link and form of the page.
  app.get("/org", { schema: { querystring: orgQuery } }, async (req, reply) => {
    const actor = await kit.actorOrNull(req);
    if (!actor) return kit.toLogin(req, reply);
    const q = req.query;
    const rt = kit.keptRt(q.rt);
    const page = Math.min(Math.max(Number.parseInt(q.page ?? "0", 10) || 0, 0), 100_000);
    try {
      let orgId: string;
      if (q.id === undefined || q.id === "") {
        const [active] = await ctx.directory.listMemberships(actor.id);
        if (!active)
          return send(
            reply,
            404,
            messagePage("No organization", "You are not a member of any organization yet.", {
              href: withRt("/create_org", rt),
              label: "Create an organization",
            }),
          );
        orgId = active.orgId;
      } else orgId = validInput(s.orgId, q.id);
      return await renderOrg(reply, actor, orgId, {
        notice: DONE[q.done ?? ""],
        search: (q.q ?? "").slice(0, 254),
        page,
        rt,
      });
    } catch (err) {
      if (err instanceof IdentityError) return notMember(reply, rt);
      throw err;
    }
  });

  /** One POST action of the /org page: run it, then go back to the page or show the refusal in place. */
  function action(
    path: string,
    section: OrgSection,
    done: string,
    run: (actor: Actor, f: FormValues) => Promise<void>,
  ) {
    app.post(path, { schema: { querystring: rtQuery, body: orgForm } }, async (req, reply) => {
      const rt = kit.keptRt(req.query.rt);
      const actor = await kit.actorOrNull(req);
      if (!actor) return reply.redirect(withRt("/login", rt), 303);
      const f = req.body;
      const orgId = (f.org_id ?? "").slice(0, 64);
      try {
        await run(actor, f);
        return reply.redirect(withRt(`/org?id=${encodeURIComponent(orgId)}&done=${done}`, rt), 303);
      } catch (err) {
        if (!(err instanceof IdentityError)) throw err;
        if (err.code === "org_not_found") return notMember(reply, rt);
        return renderOrg(reply, actor, orgId, {
          status: err.status,
          section,
          error: firstError(err),
          values: f,
          rt,
        });
      }
    });
  }

  action("/org/invite", "invite", "invited", async (actor, f) => {
    const body = validInput(s.inviteBody, { org_id: f.org_id, email: f.email, ...roleChoiceOf(f) });
    await inviteMember(ctx, actor, body);
  });
  action("/org/change_role", "members", "role", async (actor, f) => {
    const body = validInput(s.changeRoleBody, { org_id: f.org_id, user_id: f.user_id, ...roleChoiceOf(f) });
    await changeMemberRole(ctx, actor, body);
  });
  action("/org/remove_user", "members", "removed", async (actor, f) => {
    await removeMember(ctx, actor, validInput(s.removeUserBody, { org_id: f.org_id, user_id: f.user_id }));
  });
  action("/org/revoke_invite", "invites", "revoked", async (actor, f) => {
    await revokeInvitation(ctx, actor, validInput(s.revokeInviteBody, { org_id: f.org_id, email: f.email }));
  });
  action("/org/settings", "settings", "settings", async (actor, f) => {
    const body = validInput(s.updateOrgBody, {
      org_id: f.org_id,
      name: f.name,
      autojoin_by_domain: f.autojoin_by_domain === "on",
      restrict_to_domain: f.restrict_to_domain === "on",
    });
    await updateOrgSettings(ctx, actor, body);
  });
};
