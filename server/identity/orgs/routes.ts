import type { FastifyInstance, FastifyRequest } from "fastify";
import type { IdentityContext } from "../context";
import { feRoutes, paging, parseInput, requireSession } from "../fe/plumbing";
import { isSamlEnabled } from "../saml/store";
import { actorOf, orgAccess, requirePermission } from "./access";
import { resolveAssignment } from "./assign";
import { inviteUser, revokeInvite } from "./invites";
import { listInvites, listMembers } from "./lists";
import { createOrg, deleteOrg, joinableOrgs, joinOrg, orgSettings, updateOrg } from "./manage";
import { changeRole, removeUser } from "./membership";
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
      const access = await orgAccess(db, actor, org_id);
      requirePermission(access, "propelauth::can_delete_org");
      await deleteOrg(db, access);
      return {};
    });

    scope.get("/org_settings", async (req) => {
      const actor = await signedIn(req);
      const { org_id } = parseInput(s.orgSettingsQuery, req.query);
      return orgSettings(await orgAccess(db, actor, org_id), { enabled: await isSamlEnabled(db, org_id) });
    });

    scope.post("/update_org_metadata", async (req) => {
      const actor = await signedIn(req);
      const { org_id, ...input } = parseInput(s.updateOrgBody, req.body);
      const access = await orgAccess(db, actor, org_id);
      requirePermission(access, "propelauth::can_update_org_metadata");
      await updateOrg(db, access, actor, input);
      return {};
    });

    scope.post("/invite_user", async (req) => {
      const actor = await signedIn(req);
      const body = parseInput(s.inviteBody, req.body);
      const access = await orgAccess(db, actor, body.org_id);
      requirePermission(access, "propelauth::can_invite");
      const roles = resolveAssignment(access, body.role, body.additional_roles);
      await inviteUser(ctx, access, actor, body.email, roles);
      return {};
    });

    scope.post("/change_role", async (req) => {
      const actor = await signedIn(req);
      const body = parseInput(s.changeRoleBody, req.body);
      const access = await orgAccess(db, actor, body.org_id);
      requirePermission(access, "propelauth::can_change_roles");
      await changeRole(db, access, body.user_id, resolveAssignment(access, body.role, body.additional_roles));
      return {};
    });

    scope.post("/remove_user", async (req) => {
      const actor = await signedIn(req);
      const body = parseInput(s.removeUserBody, req.body);
      await removeUser(db, await orgAccess(db, actor, body.org_id), body.user_id);
      return {};
    });

    scope.post("/revoke_user_invitation", async (req) => {
      const actor = await signedIn(req);
      const body = parseInput(s.revokeInviteBody, req.body);
      await revokeInvite(ctx, await orgAccess(db, actor, body.org_id), body.email);
      return {};
    });

    scope.post<OrgParams>("/join_org/:org_id", async (req) => {
      const actor = await signedIn(req);
      return joinOrg(db, actor, parseInput(s.orgId, req.params.org_id));
    });

    scope.get("/joinable_orgs", async (req) => joinableOrgs(db, await signedIn(req)));

    scope.get<OrgParams>("/org_membership/:org_id/members", async (req) => {
      const actor = await signedIn(req);
      const q = parseInput(s.listQuery, req.query);
      const access = await orgAccess(db, actor, parseInput(s.orgId, req.params.org_id));
      requirePermission(access, "propelauth::can_view_other_members");
      return listMembers(db, access, paging(q.page_number, q.page_size), q.email_search);
    });

    for (const kind of ["pending", "expired"] as const) {
      scope.get<OrgParams>(`/org_membership/:org_id/${kind}_invites`, async (req) => {
        const actor = await signedIn(req);
        const q = parseInput(s.listQuery, req.query);
        const access = await orgAccess(db, actor, parseInput(s.orgId, req.params.org_id));
        // Invitations are seen by those who can invite (PropelAuth shows them on the same screen).
        requirePermission(access, "propelauth::can_invite");
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
