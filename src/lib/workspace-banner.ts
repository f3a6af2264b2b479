// Rules of the "No workspace assigned" banner (spec §2).

type WorkspaceLike = { workspace_uuid?: string | null } | null | undefined;

/** Administrators manage workspaces and never need one; members need one with a uuid. */
export function needsWorkspaceBanner(user: { is_admin: boolean; workspace?: WorkspaceLike }): boolean {
  if (user.is_admin) return false;
  return !user.workspace?.workspace_uuid;
}

/** "Admins: a@x, b@y", or null when there is nobody to name. */
export function adminsText(emails: readonly string[] | null | undefined): string | null {
  const list = (emails ?? []).map((e) => e.trim()).filter((e) => e.length > 0);
  return list.length > 0 ? `Admins: ${list.join(", ")}` : null;
}
