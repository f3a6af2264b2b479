// Admin-only resources (billing at "/") are refused to members; everything else is open to any
// signed-in user. The product API enforces the same rules; this only shapes the console.
import type { AccessControlProvider } from "@refinedev/core";
import { canAccessResource, type ResourceAccessMeta } from "../lib/resource-access";
import { resourceMetaByName } from "../resources";
import type { CurrentUserSource } from "./current-user";

export function createAccessControlProvider(currentUser: CurrentUserSource): AccessControlProvider {
  return {
    can: async ({ resource, params }) => {
      const meta = ((params?.resource?.meta as ResourceAccessMeta) ??
        (resource ? resourceMetaByName(resource) : undefined)) as ResourceAccessMeta;
      if (!meta?.adminOnly) return { can: true };
      try {
        const user = await currentUser.get();
        if (canAccessResource(meta, user)) return { can: true };
      } catch {
        // Unknown user: refuse rather than show an admin page.
      }
      return { can: false, reason: "Administrators only" };
    },
    options: {
      buttons: { enableAccessControl: true, hideIfUnauthorized: true },
      queryOptions: { staleTime: 5 * 60 * 1000 },
    },
  };
}
