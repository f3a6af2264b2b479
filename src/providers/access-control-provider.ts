// Refine's access control from the resource declarations: `can({ resource, action })` answers
// list/show/create/edit/delete by the user's roles (lib/resource-access): organization
// administrator or member, and provider operator for the operator area. Route guards, the sider,
// useCan, CanAccess and the @refinedev/antd buttons all ask it; buttons the user may not use are hidden.
import type { AccessControlProvider, CanReturnType } from "@refinedev/core";
import { allows, refusalReason } from "../lib/resource-access";
import { resourceByName } from "../resources";
import type { CurrentUserSource } from "./current-user";
import type { CurrentUser } from "./current-user-types";

/** An answer is as fresh as the current user it was read from. */
export const ACCESS_STALE_MS = 5 * 60 * 1000;

/** The provider's answer for a known user (null: unknown, refused). */
export function accessAnswer(
  resource: string | undefined,
  action: string,
  user: CurrentUser | null,
): CanReturnType {
  const declared = resourceByName(resource);
  return allows(declared, action, user)
    ? { can: true }
    : { can: false, reason: refusalReason(declared, action) };
}

export function createAccessControlProvider(currentUser: CurrentUserSource): AccessControlProvider {
  return {
    can: async ({ resource, action }) => {
      let user = null;
      try {
        user = await currentUser.get();
      } catch {
        // Unknown user: refuse rather than show an administrator's page or button.
      }
      return accessAnswer(resource, action, user);
    },
    options: {
      buttons: { enableAccessControl: true, hideIfUnauthorized: true },
      queryOptions: { staleTime: ACCESS_STALE_MS },
    },
  };
}
