import type { z } from "zod";
import type { IdentityContext } from "../context";
import { type Actor, orgAccess, permittedOrgAccess } from "./access";
import { resolveAssignment } from "./assign";
import { inviteUser, revokeInvite } from "./invites";
import { updateOrg } from "./manage";
import { changeRole, removeUser } from "./membership";
import type * as s from "./schemas";

/*
 * The organization changes a member asks for, both through the identity client's calls and the
 * hosted /org page: the caller's membership and permission are checked here, so the two ways in
 * cannot drift apart.
 */

export async function inviteMember(ctx: IdentityContext, actor: Actor, body: z.infer<typeof s.inviteBody>) {
  const access = await permittedOrgAccess(ctx.db, actor, body.org_id, "propelauth::can_invite");
  await inviteUser(
    ctx,
    access,
    actor,
    body.email,
    resolveAssignment(access, body.role, body.additional_roles),
  );
}

export async function changeMemberRole(
  ctx: IdentityContext,
  actor: Actor,
  body: z.infer<typeof s.changeRoleBody>,
) {
  const access = await permittedOrgAccess(ctx.db, actor, body.org_id, "propelauth::can_change_roles");
  await changeRole(ctx.db, access, body.user_id, resolveAssignment(access, body.role, body.additional_roles));
}

export async function removeMember(
  ctx: IdentityContext,
  actor: Actor,
  body: z.infer<typeof s.removeUserBody>,
) {
  await removeUser(ctx.db, await orgAccess(ctx.db, actor, body.org_id), body.user_id);
}

export async function revokeInvitation(
  ctx: IdentityContext,
  actor: Actor,
  body: z.infer<typeof s.revokeInviteBody>,
) {
  await revokeInvite(ctx, await orgAccess(ctx.db, actor, body.org_id), body.email);
}

export async function updateOrgSettings(
  ctx: IdentityContext,
  actor: Actor,
  body: z.infer<typeof s.updateOrgBody>,
) {
  const access = await permittedOrgAccess(ctx.db, actor, body.org_id, "propelauth::can_update_org_metadata");
  await updateOrg(ctx.db, access, actor, body);
}
