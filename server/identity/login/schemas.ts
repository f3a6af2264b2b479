import { z } from "zod";

// Request bodies of the sign-in calls, in the PropelAuth client's field names.
// Strict: unknown fields are refused; lengths are bounded so nothing oversized reaches hashing.

const email = z
  .string()
  .trim()
  .min(1, "Please enter your email.")
  .max(254, "Email is too long.")
  .email("Please enter a valid email address.");
const password = z.string().min(1, "Please enter your password.").max(128, "Password is too long.");
const newPassword = z
  .string()
  .min(8, "Password must be at least 8 characters.")
  .max(128, "Password must be at most 128 characters.");
const code = z.string().trim().min(1, "Please enter the code.").max(32, "The code is too long.");
const name = (label: string) => z.string().trim().max(100, `${label} is too long.`);
const username = z
  .string()
  .trim()
  .max(64, "Username is too long.")
  .regex(/^[A-Za-z0-9._-]*$/, "Use letters, digits, dots, dashes or underscores.");

/** The fields themselves, for the account calls and the hosted forms (same rules and messages). */
export const fields = { email, password, newPassword, code, name, username };

export const loginBody = z.object({ email, password }).strict();
export const codeBody = z.object({ code, remember_device: z.boolean().optional() }).strict();
export const backupBody = z.object({ code }).strict();
export const emailBody = z.object({ email }).strict();
export const passwordlessBody = z.object({ email, create_if_doesnt_exist: z.boolean().optional() }).strict();
export const signupBody = z
  .object({
    email,
    password: newPassword,
    first_name: name("First name").optional(),
    last_name: name("Last name").optional(),
    username: username.optional(),
    // Part of the client's request type; accepted and not used in this build.
    properties: z.record(z.string(), z.unknown()).optional(),
    invite_token: z.string().max(512).optional(),
    turnstile_token: z.string().max(4096).optional(),
  })
  .strict();
export const loginCheckQuery = z
  .object({
    domain: z.string().max(253).optional(),
    org_id: z.string().max(64).optional(),
    email: email.optional(),
  })
  .strict()
  .refine((q) => q.domain || q.org_id || q.email, { message: "Give domain, org_id or email." });
