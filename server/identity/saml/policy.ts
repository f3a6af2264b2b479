import type { OrgAccess } from "../orgs/access";
import { emailDomain, isPersonalDomain } from "../orgs/domain";

// Who may set up SAML, and for which email domain. SAML sign-in always works within the
// organization's email domain: the identity provider can then only speak for addresses of that
// domain (never for an account elsewhere). An organization without a domain takes its Owner's
// when SAML is first saved; a personal mailbox domain can't be one.

/** The domain SAML sign-in of this organization is bound to, or null when there can't be one. */
export function samlDomainOf(access: OrgAccess): string | null {
  if (access.org.domain) return access.org.domain;
  const own = emailDomain(access.email);
  return own && !isPersonalDomain(own) ? own : null;
}

export function canSetupSaml(access: OrgAccess): boolean {
  return access.permissions.has("propelauth::can_setup_saml") && samlDomainOf(access) !== null;
}
