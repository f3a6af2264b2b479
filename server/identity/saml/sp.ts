import { generateServiceProviderMetadata, SAML, ValidateInResponseTo } from "@node-saml/node-saml";
import type { Config } from "../../platform/config";
import type { Db } from "../../platform/database";
import { REQUEST_TTL_MS, requestCache, type SamlConnection } from "./store";

// We are the service provider: one SP per organization, its entity id being its metadata URL.

const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

export function spUrls(config: Config, orgId: string) {
  const base = `${config.authPublicUrl}/saml/${encodeURIComponent(orgId)}`;
  return {
    entityId: `${base}/metadata`,
    metadataUrl: `${base}/metadata`,
    acsUrl: `${base}/acs`,
    loginUrl: `${base}/login`,
  };
}

/** The metadata XML an IdP imports; it needs no IdP settings, so it works before set-up. */
export function spMetadata(config: Config, orgId: string): string {
  const urls = spUrls(config, orgId);
  return generateServiceProviderMetadata({
    issuer: urls.entityId,
    callbackUrl: urls.acsUrl,
    identifierFormat: EMAIL_FORMAT,
    wantAssertionsSigned: true,
  });
}

/**
 * node-saml for one organization's connection. A response is accepted when the Response or its
 * Assertion carries a valid signature by the configured certificate (either is common among
 * IdPs); it must answer a request we sent (InResponseTo), name our entity id as audience and be
 * within its time conditions.
 */
export function serviceProvider(config: Config, db: Db, conn: SamlConnection): SAML {
  const urls = spUrls(config, conn.orgId);
  return new SAML({
    issuer: urls.entityId,
    audience: urls.entityId,
    callbackUrl: urls.acsUrl,
    entryPoint: conn.idpSsoUrl,
    idpCert: conn.idpCertificate,
    identifierFormat: EMAIL_FORMAT,
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: requestCache(db, conn.orgId),
    acceptedClockSkewMs: 60_000,
    maxAssertionAgeMs: REQUEST_TTL_MS,
    // IdPs answer with the context they used (MFA, passwordless); don't demand a password one.
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
  });
}
