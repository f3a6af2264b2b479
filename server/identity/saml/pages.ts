import { alert, type FieldErrors, html, input, page, SafeHtml } from "../hosted-pages/html";
import { notice, orgStyle } from "../orgs/page-style";

// The hosted SAML pages: set-up for an organization's Owner, and the page a failed sign-in ends on.

const CSS = `
textarea{width:100%;min-height:160px;padding:6px 11px;border:1px solid var(--input);border-radius:8px;background:var(--card);
color:var(--text);font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;outline:none}
textarea:focus{border-color:var(--primary);box-shadow:0 0 0 2px rgba(0,60,180,.35)}
textarea[aria-invalid=true]{border-color:var(--error)}
code.copy{display:block;padding:6px 8px;border:1px solid var(--border);border-radius:6px;word-break:break-all;user-select:all}
`;

export type SamlValues = {
  idp_entity_id: string;
  idp_sso_url: string;
  idp_certificate: string;
  enabled: boolean;
};

export type SamlSetupView = {
  orgId: string;
  orgName: string;
  /** The email domain SAML sign-in is bound to. */
  domain: string;
  /** The DNS TXT record that proves the organization owns `domain`, and whether it was checked. */
  ownership: { recordName: string; recordValue: string; verified: boolean; error?: string };
  sp: { entityId: string; acsUrl: string; metadataUrl: string };
  state: "none" | "enabled" | "disabled";
  values: SamlValues;
  errors?: FieldErrors;
  message?: string;
  notice?: string;
  rt?: string;
  /** Starts a sign-in through the IdP that comes back to this page. */
  testUrl: string;
  backUrl: string;
};

function textarea(name: string, label: string, value: string, error?: string): SafeHtml {
  const id = `f-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label>
<textarea id="${id}" name="${name}" spellcheck="false" aria-invalid="${error ? "true" : "false"}"
 ${error ? new SafeHtml(`aria-describedby="${id}-error"`) : ""}>${value}</textarea>
${error ? html`<div class="field-error" id="${id}-error" role="alert">${error}</div>` : ""}</div>`;
}

const STATE_TEXT = {
  none: "Not set up yet.",
  enabled: "On: members sign in through your identity provider.",
  disabled: "Saved but turned off.",
};

export function samlSetupPage(v: SamlSetupView): string {
  const e = v.errors ?? {};
  return page(
    "Single sign-on",
    html`${orgStyle}<style>${new SafeHtml(CSS)}</style><div class="wide">
<div class="card"><h1>Single sign-on (SAML) for ${v.orgName}</h1>
<p class="sub">Status: <strong>${STATE_TEXT[v.state]}</strong> ${
      v.ownership.verified
        ? html`Sign-in is open to @${v.domain} addresses; new people become Members of ${v.orgName}, and
existing accounts join once their owner links them (with their password or an emailed link).`
        : html`Until ${v.orgName} verifies that it owns ${v.domain} (below), nobody is routed to your identity
provider and it can sign in no one.`
    }</p>${notice(v.notice)}
<h2>Domain ownership</h2>${
      v.ownership.verified
        ? html`<p><strong>${v.domain} is verified</strong> for ${v.orgName}.</p>`
        : html`${alert(v.ownership.error)}<p class="sub">Publish this DNS TXT record for ${v.domain}, then check it.
A domain can be verified by one organization only; a personal email domain can't be.</p>
<dl><dt>Name</dt><dd><code class="copy">${v.ownership.recordName}</code></dd>
<dt>Type</dt><dd>TXT</dd>
<dt>Value</dt><dd><code class="copy">${v.ownership.recordValue}</code></dd></dl>
<form method="post" action="/saml/verify_domain">
<input type="hidden" name="org_id" value="${v.orgId}">${v.rt ? html`<input type="hidden" name="rt" value="${v.rt}">` : ""}
<button type="submit">Verify ${v.domain}</button></form>`
    }
<h2>1. Add Eval Console to your identity provider</h2>
<dl><dt>Entity ID (audience)</dt><dd><code class="copy">${v.sp.entityId}</code></dd>
<dt>Assertion consumer service (ACS) URL, HTTP-POST</dt><dd><code class="copy">${v.sp.acsUrl}</code></dd>
<dt>Name ID</dt><dd>The user's email address (or send an <code>email</code> attribute)</dd>
<dt>Metadata</dt><dd><a href="${v.sp.metadataUrl}" download="eval-console-saml-metadata.xml">Download the metadata XML</a></dd></dl>
</div>
<div class="card"><h2>2. Enter your identity provider's details</h2>${alert(v.message)}
<form method="post" action="/saml" novalidate>
<input type="hidden" name="org_id" value="${v.orgId}">${v.rt ? html`<input type="hidden" name="rt" value="${v.rt}">` : ""}
${input("idp_entity_id", "Identity provider entity ID (issuer)", { value: v.values.idp_entity_id, error: e.idp_entity_id })}
${input("idp_sso_url", "Single sign-on URL", { type: "url", value: v.values.idp_sso_url, error: e.idp_sso_url })}
${textarea("idp_certificate", "Signing certificate (X.509, PEM)", v.values.idp_certificate, e.idp_certificate)}
<div class="check"><input type="checkbox" id="f-enabled" name="enabled" value="on" ${v.values.enabled ? html`checked` : ""}>
<label for="f-enabled" style="margin:0">Turn on SAML sign-in for ${v.orgName}</label></div>
<button type="submit">Save</button></form></div>
<div class="card"><h2>3. Test it</h2>${
      v.state === "enabled"
        ? html`<p class="sub">Signs you in through your identity provider, then comes back here.</p>
<a class="button secondary" href="${v.testUrl}">Test sign-in</a>`
        : html`<p class="sub">Save the details with SAML sign-in turned on to test it.</p>`
    }</div>
<p class="foot"><a href="${v.backUrl}">Back</a></p></div>`,
  );
}

/** A refusal (or, with tone "info", a plain message) page with one way out. */
export function samlMessagePage(
  title: string,
  message: string,
  link: { href: string; label: string },
  tone: "error" | "info" = "error",
): string {
  return page(
    title,
    html`<div class="card"><h1>${title}</h1>${tone === "error" ? alert(message) : html`<p class="sub">${message}</p>`}<a class="button" href="${link.href}">${link.label}</a></div>`,
  );
}

export type LinkView = {
  orgName: string;
  email: string;
  token: string;
  message?: string;
  passwordError?: string;
};

/**
 * An existing account the organization's SSO is not linked to: its owner proves it is theirs
 * with the account's password, or by an emailed link, before SSO may sign it in.
 */
export function samlLinkPage(v: LinkView): string {
  return page(
    "Link your account",
    html`<div class="card"><h1>Link your account</h1>
<p class="sub">An Eval Console account for <strong>${v.email}</strong> already exists. Before ${v.orgName}'s single
sign-on can sign you in to it, confirm that the account is yours.</p>${alert(v.message)}
<form method="post" action="/saml/link" novalidate>
<input type="hidden" name="token" value="${v.token}"><input type="hidden" name="action" value="password">
${input("password", "Your Eval Console password", { type: "password", error: v.passwordError })}
<button type="submit">Link with my password</button></form>
<form method="post" action="/saml/link" style="margin-top:12px">
<input type="hidden" name="token" value="${v.token}"><input type="hidden" name="action" value="email">
<button type="submit" class="button secondary">Email me a confirmation link instead</button></form></div>`,
  );
}

/** The emailed link's landing page: one button, so that opening the link alone changes nothing. */
export function samlLinkConfirmPage(v: { orgName: string; email: string; token: string }): string {
  return page(
    "Link your account",
    html`<div class="card"><h1>Link your account</h1>
<p class="sub">Let ${v.orgName}'s single sign-on sign you in to your Eval Console account <strong>${v.email}</strong>?</p>
<form method="post" action="/saml/link/confirm"><input type="hidden" name="token" value="${v.token}">
<button type="submit">Link my account</button></form></div>`,
  );
}
