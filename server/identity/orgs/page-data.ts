import type { Db } from "../../platform/database";
import { paging } from "../fe/plumbing";
import type { OrgAccess } from "./access";
import { listInvites, listMembers } from "./lists";
import type { OrgPageView } from "./pages";
import { assignableRoles, rolesHeld } from "./roles";

const MEMBERS_PER_PAGE = 20;
const INVITES_SHOWN = 50;

/** Everything the hosted /org page shows, fetched only where the viewer has the permission. */
export async function orgPageData(
  db: Db,
  access: OrgAccess,
  q: { search: string; page: number },
): Promise<OrgPageView> {
  const has = (p: string) => access.permissions.has(p);
  const { org } = access;
  const view: OrgPageView = {
    org: {
      id: org.id,
      name: org.name,
      domain: org.domain,
      autojoin: org.autojoinByDomain,
      restrict: org.restrictToDomain,
      multiRole: access.structure === "multi_role",
    },
    me: {
      email: access.email,
      roles: rolesHeld(access.structure, access.roles).slice(
        0,
        access.structure === "multi_role" ? undefined : 1,
      ),
    },
    can: {
      invite: has("propelauth::can_invite"),
      settings: has("propelauth::can_update_org_metadata"),
      saml: has("propelauth::can_setup_saml"),
    },
    roleOptions: assignableRoles(access.roles),
  };
  if (has("propelauth::can_view_other_members")) {
    const m = await listMembers(db, access, paging(q.page, MEMBERS_PER_PAGE), q.search || undefined);
    view.members = {
      users: m.users,
      total: m.total_count,
      pageNumber: m.page_number,
      hasMore: m.has_more_results,
      q: q.search,
    };
  }
  if (view.can.invite) {
    const first = paging(0, INVITES_SHOWN);
    view.pending = (await listInvites(db, org.id, "pending", first)).invites;
    view.expired = (await listInvites(db, org.id, "expired", first)).invites;
  }
  return view;
}
