import { z } from "zod";

// Request bodies of the organization calls: strict (unknown fields are refused) and bounded.

export const orgId = z.string().trim().min(1, "Please give an organization.").max(64);
const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "Email is too long.")
  .pipe(z.email("Please enter a valid email address."));
const role = z.string().trim().min(1, "Please choose a role.").max(32);
const additionalRoles = z.array(role).max(8).default([]);
const userId = z.string().trim().min(1).max(64);
export const orgName = z
  .string()
  .trim()
  .min(1, "Please enter a name.")
  .max(100, "Name must be at most 100 characters.");

export const createOrgBody = z.strictObject({
  name: orgName,
  autojoin_by_domain: z.boolean().default(false),
  restrict_to_domain: z.boolean().default(false),
});

export const orgIdBody = z.strictObject({ org_id: orgId });

export const updateOrgBody = z.strictObject({
  org_id: orgId,
  name: orgName.optional(),
  autojoin_by_domain: z.boolean().optional(),
  restrict_to_domain: z.boolean().optional(),
  require_2fa_by: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const inviteBody = z.strictObject({
  org_id: orgId,
  email,
  role,
  additional_roles: additionalRoles,
});

export const changeRoleBody = z.strictObject({
  org_id: orgId,
  user_id: userId,
  role,
  additional_roles: additionalRoles,
});

export const removeUserBody = z.strictObject({ org_id: orgId, user_id: userId });
export const revokeInviteBody = z.strictObject({ org_id: orgId, email });

const pageNumber = z.coerce.number().int().min(0).max(100_000).optional();
export const listQuery = z.strictObject({
  page_size: z.coerce.number().int().min(1).max(100).optional(),
  page_number: pageNumber,
  email_search: z.string().trim().max(254).optional(),
});

export const orgSettingsQuery = z.strictObject({ org_id: orgId });
