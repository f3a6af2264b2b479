import { z } from "zod";
import { normalizeCertificate } from "./store";

// The SAML set-up form's fields, as the Owner types them, and the checks they must pass. Its
// messages are shown beside each field of the set-up page.

const isWebUrl = (text: string) => {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
};

/** The posted fields: what the page shows again when they are refused (bounded as typed). */
export const samlSetupBody = z.object({
  org_id: z.string().optional(),
  rt: z.string().optional(),
  idp_entity_id: z.string().optional(),
  idp_sso_url: z.string().optional(),
  idp_certificate: z.string().optional(),
  enabled: z.string().optional(),
});
export type SamlSetupBody = z.output<typeof samlSetupBody>;

/** The settings to save, checked: the certificate comes out as PEM. */
export const samlSettings = z.object({
  idp_entity_id: z
    .string()
    .trim()
    .min(1, "Please enter the identity provider's entity ID.")
    .max(1024, "The entity ID is too long."),
  idp_sso_url: z
    .string()
    .trim()
    .refine(isWebUrl, "Please enter the sign-in URL, starting with https:// (or http://).")
    .refine((u) => u.length <= 2048, "The sign-in URL is too long."),
  idp_certificate: z
    .string()
    .max(40_000, "This is not a valid X.509 certificate. Paste it in PEM form (BEGIN CERTIFICATE).")
    .refine((c) => c.trim() !== "", "Please paste the identity provider's signing certificate.")
    .transform((c, check) => {
      const pem = normalizeCertificate(c);
      if (pem) return pem;
      if (c.trim())
        check.addIssue({
          code: "custom",
          message: "This is not a valid X.509 certificate. Paste it in PEM form (BEGIN CERTIFICATE).",
        });
      return z.NEVER;
    }),
  enabled: z
    .string()
    .optional()
    .transform((on) => on === "on"),
});
