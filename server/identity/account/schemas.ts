import { z } from "zod";
import { fields } from "../login/schemas";

// Request bodies of the account calls, in the PropelAuth client's field names; strict, with the
// sign-in calls' field rules.

const { email, password, newPassword, code, name, username } = fields;

export const mfaEnableBody = z.object({ code }).strict();
export const updateEmailBody = z.object({ new_email: email, password: password.optional() }).strict();
export const updatePasswordBody = z
  .object({ password: newPassword, current_password: password.optional(), old_password: password.optional() })
  .strict();
export const updateMetadataBody = z
  .object({
    first_name: name("First name").optional(),
    last_name: name("Last name").optional(),
    username: username.optional(),
    properties: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
