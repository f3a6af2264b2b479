import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { paging, sessionOf, signedIn } from "../fe/plumbing";
import { isSamlEnabled } from "../saml/store";
import { type Actor, actorOf, orgAccess, permittedOrgAccess } from "./access";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation, updateOrgSettings } from "./actions";
import { listInvites, listMembers } from "./lists";
import { createOrg, deleteOrg, joinableOrgs, joinOrg, orgSettings } from "./manage";
import * as s from "./schemas";

const tags = ["Organizations"];
const orgParams = z.strictObject({ org_id: s.orgId });

/**
 * Identity client organization calls under /api/fe/v3: create_org, delete_org, org_settings,
 * update_org_metadata, invite_user, join_org, change_role, remove_user, revoke_user_invitation,
 * org_membership lists, joinable_orgs. Every one is signed in (checked before the input).
 */
export const orgRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (scope, { ctx }) => {
  const { db } = ctx;
  const preValidation = signedIn(ctx);
  const actor = (req: Parameters<typeof sessionOf>[0]) => actorOf(sessionOf(req));

  scope.post(
    "/create_org",
    { preValidation, schema: { tags, summary: "Create an organization", body: s.createOrgBody } },
    async (req) => createOrg(db, actor(req), req.body),
  );

  scope.delete(
    "/delete_org",
    { preValidation, schema: { tags, summary: "Delete an organization", body: s.orgIdBody } },
    async (req) => {
      const { org_id } = req.body;
      await deleteOrg(db, await permittedOrgAccess(db, actor(req), org_id, "propelauth::can_delete_org"));
      return {};
    },
  );

  scope.get(
    "/org_settings",
    {
      preValidation,
      schema: { tags, summary: "An organization's settings", querystring: s.orgSettingsQuery },
    },
    async (req) => {
      const { org_id } = req.query;
      return orgSettings(await orgAccess(db, actor(req), org_id), {
        enabled: await isSamlEnabled(db, org_id),
      });
    },
  );

  /** A change the /org page makes too (see actions.ts): the signed-in caller, the body, then {}. */
  function change<S extends z.ZodType>(
    path: string,
    summary: string,
    body: S,
    run: (ctx: IdentityContext, actor: Actor, body: z.output<S>) => Promise<void>,
  ) {
    scope.post(path, { preValidation, schema: { tags, summary, body } }, async (req) => {
      await run(ctx, actor(req), req.body as z.output<S>);
      return {};
    });
  }
  change("/update_org_metadata", "Change an organization's settings", s.updateOrgBody, updateOrgSettings);
  change("/invite_user", "Invite someone", s.inviteBody, inviteMember);
  change("/change_role", "Change a member's role", s.changeRoleBody, changeMemberRole);
  change("/remove_user", "Remove a member", s.removeUserBody, removeMember);
  change("/revoke_user_invitation", "Revoke an invitation", s.revokeInviteBody, revokeInvitation);

  scope.post(
    "/join_org/:org_id",
    {
      preValidation,
      schema: { tags, summary: "Join an organization open to the email's domain", params: orgParams },
    },
    async (req) => joinOrg(db, actor(req), req.params.org_id),
  );

  scope.get(
    "/joinable_orgs",
    { preValidation, schema: { tags, summary: "Organizations open to the email's domain" } },
    async (req) => joinableOrgs(db, actor(req)),
  );

  scope.get(
    "/org_membership/:org_id/members",
    {
      preValidation,
      schema: { tags, summary: "An organization's members", params: orgParams, querystring: s.listQuery },
    },
    async (req) => {
      const q = req.query;
      const access = await permittedOrgAccess(
        db,
        actor(req),
        req.params.org_id,
        "propelauth::can_view_other_members",
      );
      return listMembers(db, access, paging(q.page_number, q.page_size), q.email_search);
    },
  );

  for (const kind of ["pending", "expired"] as const) {
    scope.get(
      `/org_membership/:org_id/${kind}_invites`,
      {
        preValidation,
        schema: {
          tags,
          summary: `An organization's ${kind} invitations`,
          params: orgParams,
          querystring: s.listQuery,
        },
      },
      async (req) => {
        const q = req.query;
        // Invitations are seen by those who can invite (PropelAuth shows them on the same screen).
        const access = await permittedOrgAccess(db, actor(req), req.params.org_id, "propelauth::can_invite");
        const { invites, ...page } = await listInvites(
          db,
          access.org.id,
          kind,
          paging(q.page_number, q.page_size),
          q.email_search,
        );
        return { [`${kind}_invites`]: invites, ...page };
      },
    );
  }
};
