// One rule decides who may open a resource; the access-control provider (routes, buttons) and the
// sider both use it, so a hidden menu entry and a refused route can never disagree.

export type ResourceAccessMeta = { adminOnly?: boolean } | undefined;

export function canAccessResource(meta: ResourceAccessMeta, user: { is_admin: boolean } | null): boolean {
  if (!meta?.adminOnly) return true;
  return user?.is_admin === true;
}
