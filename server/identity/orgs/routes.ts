import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { IdentityContext } from "../context";
import { feRoutes, paging, parseInput, requireSession } from "../fe/plumbing";
import { isSamlEnabled } from "../saml/store";
import { type Actor, actorOf, orgAccess, permittedOrgAccess } from "./access";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation, updateOrgSettings } from "./actions";
import { listInvites, listMembers } from "./lists";
import { createOrg, deleteOrg, joinableOrgs, joinOrg, orgSettings } from "./manage";
import * as s from "./schemas";

type OrgParams = { Params: { org_id: string } };

/** Identity client organization calls under /api/fe/v3: create_org, delete_org, org_settings, update_org_metadata, invite_user, join_org, change_role, remove_user, revoke_user_invitation, org_membership lists, joinable_orgs. */
export function registerOrgRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const { db } = ctx;
  const signedIn = async (req: FastifyRequest) => actorOf(await requireSession(ctx, req));

  feRoutes(app, (scope) => {
    scope.post("/create_org", async (req) => {
      const actor = await signedIn(req);
      return createOrg(db, actor, parseInput(s.createOrgBody, req.body));
    });

    scope.delete("/delete_org", async (req) => {
      const actor = await signedIn(req);
      const { org_id } = parseInput(s.orgIdBody, req.body);
      await deleteOrg(db, await permittedOrgAccess(db, actor, org_id, "propelauth::can_delete_org"));
      return {};
    });

    scope.get("/org_settings", async (req) => {
      const actor = await signedIn(req);
      const { org_id } = parseInput(s.orgSettingsQuery, req.query);
      return orgSettings(await orgAccess(db, actor, org_id), { enabled: await isSamlEnabled(db, org_id) });
    });

    /** A change the /org page makes too (see actions.ts): the signed-in caller, the body, then {}. */
    function change<S extends z.ZodType>(
      path: string,
      body: S,
      run: (ctx: IdentityContext, actor: Actor, body: z.infer<S>) => Promise<void>,
    ) {
      scope.post(path, async (req) => {
        await run(ctx, await signedIn(req), parseInput(body, req.body));
        return {};
      });
    }
    change("/update_org_metadata", s.updateOrgBody, updateOrgSettings);
    change("/invite_user", s.inviteBody, inviteMember);
    change("/change_role", s.changeRoleBody, changeMemberRole);
    change("/remove_user", s.removeUserBody, removeMember);
    change("/revoke_user_invitation", s.revokeInviteBody, revokeInvitation);

    scope.post<OrgParams>("/join_org/:org_id", async (req) => {
      const actor = await signedIn(req);
      return joinOrg(db, actor, parseInput(s.orgId, req.params.org_id));
    });

    scope.get("/joinable_orgs", async (req) => joinableOrgs(db, await signedIn(req)));

    scope.get<OrgParams>("/org_membership/:org_id/members", async (req) => {
      const actor = await signedIn(req);
      const q = parseInput(s.listQuery, req.query);
      const orgId = parseInput(s.orgId, req.params.org_id);
      const access = await permittedOrgAccess(db, actor, orgId, "propelauth::can_view_other_members");
      return listMembers(db, access, paging(q.page_number, q.page_size), q.email_search);
    });

    for (const kind of ["pending", "expired"] as const) {
      scope.get<OrgParams>(`/org_membership/:org_id/${kind}_invites`, async (req) => {
        const actor = await signedIn(req);
        const q = parseInput(s.listQuery, req.query);
        const orgId = parseInput(s.orgId, req.params.org_id);
        // Invitations are seen by those who can invite (PropelAuth shows them on the same screen).
        const access = await permittedOrgAccess(db, actor, orgId, "propelauth::can_invite");
        const { invites, ...page } = await listInvites(
          db,
          access.org.id,
          kind,
          paging(q.page_number, q.page_size),
          q.email_search,
        );
        return { [`${kind}_invites`]: invites, ...page };
      });
    }
  });
}
