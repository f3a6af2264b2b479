// Shape of GET /v1/accounts/me (spec §3 "Current user").

export type Organization = { name: string; org_uuid: string };
export type Workspace = { workspace_uuid: string; name: string };

export type CurrentUser = {
  email: string;
  is_admin: boolean;
  is_impersonating: boolean;
  /** A provider operator: the console shows them its operator area (never while impersonating). */
  is_operator: boolean;
  organization: Organization | null;
  workspace: Workspace | null;
  org_admin_emails: string[];
};
