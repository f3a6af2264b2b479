import { z } from "zod";
import { API_ERROR_CODES, API_ERRORS } from "../platform/errors";
import { emailField, uuidField } from "./fields";

/**
 * The product API's request and response shapes. Routes validate requests and responses with
 * them and the OpenAPI document is generated from them, so the three cannot drift apart.
 */

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(API_ERROR_CODES).meta({
        description: `Stable, machine-readable error code, with its status: ${API_ERROR_CODES.map(
          (code) => `${code} (${API_ERRORS[code][0]})`,
        ).join(", ")}.`,
      }),
      message: z.string().meta({ description: "A sentence for people." }),
    }),
  })
  .meta({ id: "Error" });

/** A JSON response of a route, with the description the OpenAPI document gives it. */
export const json = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { "application/json": { schema } },
});

/** An error response of a route: the error JSON, described for this route and status. */
export const failure = (description: string) => json(description, ErrorSchema);

/** The sentence that ends the description of a route for organization administrators. */
export const ADMINS_ONLY =
  "Organization administrators only (Admin or Owner), with a bearer token, an administrator's " +
  "personal API key or an organization API key; members and their keys get 403.";

/** What a route for organization administrators answers a caller not signed in, or not one. */
export const ADMIN_ERRORS = {
  401: failure("Not signed in"),
  403: failure("Not an organization administrator (members and members' keys)"),
};

/** A response without a body (204). */
export const noContent = (description: string) => z.undefined().meta({ description });

export const WorkspaceSchema = z
  .object({
    workspace_uuid: z.uuid(),
    name: z.string(),
    organization_uuid: z.string(),
    organization_name: z.string(),
    member_count: z.int().min(0),
    created_at: z.iso.datetime(),
    deleted_at: z.iso.datetime().nullable().meta({ description: "Set when the workspace was deleted." }),
  })
  .meta({ id: "Workspace" });

export const MemberSchema = z
  .object({
    email: z.string(),
    user_id: z.string(),
    role: z.string().meta({ description: 'Role in the workspace; "Member" by default.' }),
  })
  .meta({ id: "WorkspaceMember" });

export const OrganizationUserSchema = z
  .object({
    email: z.string(),
    user_id: z.string(),
    role: z.enum(["Owner", "Admin", "Member"]),
  })
  .meta({ id: "OrganizationUser" });

export const CurrentUserSchema = z
  .object({
    email: z.string(),
    is_admin: z.boolean(),
    is_impersonating: z.boolean(),
    is_operator: z.boolean().meta({
      description:
        "A provider operator (may call /v1/operator/…); false while impersonating, which that API refuses.",
    }),
    organization: z.object({ name: z.string(), org_uuid: z.string() }).nullable(),
    workspace: z.object({ workspace_uuid: z.uuid(), name: z.string() }).nullable(),
    org_admin_emails: z.array(z.string()),
  })
  .meta({ id: "CurrentUser" });

const workspaceName = z
  .string({ error: "name must be a string." })
  .trim()
  .min(1, "name is required.")
  .max(100, "name must be at most 100 characters.")
  .meta({ description: "Trimmed; unique (case-insensitive) among the organization's live workspaces." });

const organizationUuid = z
  .string({ error: "organization_uuid must be a string." })
  .min(1, "organization_uuid is required.")
  .max(100, "organization_uuid is too long.")
  .meta({ description: "Must be the caller's organization." });

export const WorkspaceBodySchema = z
  .strictObject({ name: workspaceName, organization_uuid: organizationUuid })
  .meta({ id: "WorkspaceBody" });

export const ChooseWorkspaceBodySchema = z
  .strictObject({ workspace_uuid: uuidField("workspace_uuid") })
  .meta({ id: "ChooseWorkspaceBody" });

const email = emailField("user_email");

export const AddMemberBodySchema = z.strictObject({ user_email: email }).meta({ id: "AddMemberBody" });
export const AddMemberQuerySchema = z.strictObject({ user_email: email.optional() });

export const WorkspaceParamsSchema = z.strictObject({
  workspace_uuid: uuidField("workspace_uuid"),
});
export const MemberParamsSchema = z.strictObject({
  workspace_uuid: uuidField("workspace_uuid"),
  user_email: email,
});

export const ListWorkspacesQuerySchema = z.strictObject({
  show_deleted: z
    .enum(["true", "false"], { error: "show_deleted must be true or false." })
    .default("false")
    .transform((v) => v === "true")
    .meta({ description: "Include deleted workspaces (billing history)." }),
});
