// Labels for the current user's account, shared by the settings page, header and banners.

export function roleLabel(isAdmin: boolean): "Admin" | "User" {
  return isAdmin ? "Admin" : "User";
}

export function organizationLabel(organization: { name?: string | null } | null | undefined): string {
  const name = organization?.name?.trim();
  return name ? name : "Not assigned";
}
