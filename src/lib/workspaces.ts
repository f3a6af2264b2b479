// Rules of the workspace screens (spec §2 Workspace list / details, §5 validation).

export type WorkspaceRecord = {
  workspace_uuid: string;
  name: string;
  organization_uuid: string;
  organization_name: string;
  member_count: number;
  created_at?: string | null;
  deleted_at?: string | null;
};

export type WorkspaceMember = { email: string; user_id?: string | null; role?: string | null };
export type OrganizationUser = { email: string; user_id?: string | null; role?: string | null };

/** The workspace list and members are fresh for 5 minutes (spec §7). */
export const WORKSPACE_STALE_MS = 5 * 60 * 1000;

export function normalizeWorkspaceName(name: string | null | undefined): string {
  return (name ?? "").trim();
}

/** Create is disabled while the (trimmed) name is empty. */
export function canCreateWorkspace(name: string | null | undefined): boolean {
  return normalizeWorkspaceName(name) !== "";
}

/** Update is disabled when the name is empty or unchanged. */
export function canUpdateWorkspace(
  name: string | null | undefined,
  original: string | null | undefined,
): boolean {
  const next = normalizeWorkspaceName(name);
  return next !== "" && next !== normalizeWorkspaceName(original);
}

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Organization users who are not yet members, in email order, each once. */
export function memberCandidates(
  organizationUsers: readonly OrganizationUser[] | null | undefined,
  members: readonly WorkspaceMember[] | null | undefined,
): OrganizationUser[] {
  const taken = members ?? [];
  const seen = new Set<string>();
  const out: OrganizationUser[] = [];
  for (const user of organizationUsers ?? []) {
    const key = user.email?.trim().toLowerCase();
    if (!key || seen.has(key)) continue;
    seen.add(key);
    if (taken.some((m) => sameEmail(m.email, user.email))) continue;
    out.push(user);
  }
  return out.sort((a, b) => a.email.localeCompare(b.email));
}

/** A member's role as shown; "Member" when the API gives none. */
export function memberRoleLabel(role: string | null | undefined): string {
  const value = role?.trim();
  if (!value) return "Member";
  return value
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(" ");
}

export function memberCountLabel(count: number | null | undefined): string {
  const n = typeof count === "number" && Number.isFinite(count) ? count : 0;
  return `${n} ${n === 1 ? "member" : "members"}`;
}

export function isCurrentWorkspace(
  workspace: { workspace_uuid: string },
  current: { workspace_uuid?: string | null } | null | undefined,
): boolean {
  return Boolean(current?.workspace_uuid) && current?.workspace_uuid === workspace.workspace_uuid;
}
