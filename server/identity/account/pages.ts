import { alert, type FieldErrors, html, input, page, SafeHtml } from "../hosted-pages/html";
import { withRt } from "../hosted-pages/kit";

// The hosted /account page: profile, email, password, two-factor, personal API keys, deletion.
// Every form posts back to /account/... and the answer comes back to this page in place.

export type AccountView = {
  rt?: string | undefined;
  returnUrl: string;
  email: string;
  firstName: string;
  lastName: string;
  username: string;
  hasPassword: boolean;
  orgs: { name: string; role: string }[];
  mfa: { enabled: true; backupCodesLeft: number } | { enabled: false; secret: string; qr: string };
  newBackupCodes?: string[] | undefined;
  apiKeys?: { id: string; createdAt: number; expiresAt: number | null }[] | undefined;
  newApiKey?: string | undefined;
  section?: string | undefined;
  notice?: string | undefined;
  message?: string | undefined;
  errors?: FieldErrors | undefined;
  values?: Record<string, string | undefined> | undefined;
};

const EXTRA =
  new SafeHtml(`<style>main{max-width:560px}.card+.card{margin-top:16px}h2{margin:0 0 12px;font-size:16px;font-weight:600}
.ok{margin-bottom:20px;padding:9px 12px;border:1px solid #274916;border-radius:8px;background:#162312}
.codes{display:grid;grid-template-columns:1fr 1fr;gap:6px;font-family:ui-monospace,monospace;margin:0 0 16px}
.secret{font-family:ui-monospace,monospace;word-break:break-all}.qr{background:#fff;border-radius:8px;padding:8px;display:block;margin:0 auto 12px}
table{width:100%;border-collapse:collapse;margin-bottom:12px}td,th{padding:6px 4px;border-bottom:1px solid var(--border);text-align:left}
.danger{background:#a61d24}.danger:hover{background:#dc4446}.row{display:flex;gap:8px}</style>`);

const date = (s: number | null) => (s === null ? "never" : new Date(s * 1000).toISOString().slice(0, 10));

export function accountPage(a: AccountView): string {
  const act = (path: string) => withRt(path, a.rt);
  const err = (section: string, field: string) => (a.section === section ? a.errors?.[field] : undefined);
  const val = (section: string, field: string, fallback = "") =>
    (a.section === section ? a.values?.[field] : undefined) ?? fallback;
  const msg = (section: string) => (a.section === section ? alert(a.message) : "");
  const ok = (section: string) =>
    a.section === section && a.notice ? html`<div class="ok" role="status">${a.notice}</div>` : "";
  const mfa = a.mfa;
  return page(
    "Account",
    html`${EXTRA}<div class="card"><h1>Your account</h1><p class="sub">Signed in as ${a.email}</p>
<dl><dt>Organizations</dt><dd>${a.orgs.length ? a.orgs.map((o) => html`<div>${o.name} (${o.role})</div>`) : "None"}</dd></dl>
<div class="row"><a class="button" href="${a.returnUrl}">Back to the console</a>
<form method="post" action="/logout" style="width:100%"><button class="button secondary" type="submit">Sign out</button></form></div></div>

<div class="card" id="profile"><h2>Profile</h2>${ok("profile")}${msg("profile")}
<form method="post" action="${act("/account/profile")}" novalidate>
${input("first_name", "First name", { value: val("profile", "first_name", a.firstName), autocomplete: "given-name", error: err("profile", "first_name") })}
${input("last_name", "Last name", { value: val("profile", "last_name", a.lastName), autocomplete: "family-name", error: err("profile", "last_name") })}
${input("username", "Username", { value: val("profile", "username", a.username), autocomplete: "username", error: err("profile", "username") })}
<button type="submit">Save profile</button></form></div>

<div class="card" id="email"><h2>Email</h2>${ok("email")}${msg("email")}
<form method="post" action="${act("/account/email")}" novalidate>
${input("new_email", "New email", { type: "email", value: val("email", "new_email"), autocomplete: "email", error: err("email", "new_email") })}
${a.hasPassword ? input("password", "Current password", { type: "password", autocomplete: "current-password", error: err("email", "password") }) : ""}
<button type="submit">Send confirmation to the new email</button></form></div>

<div class="card" id="password"><h2>Password</h2>${ok("password")}${msg("password")}
<form method="post" action="${act("/account/password")}" novalidate>
${a.hasPassword ? input("current_password", "Current password", { type: "password", autocomplete: "current-password", error: err("password", "current_password") }) : ""}
${input("password", "New password", { type: "password", autocomplete: "new-password", error: err("password", "password") })}
<button type="submit">${a.hasPassword ? "Change password" : "Set password"}</button></form></div>

<div class="card" id="mfa"><h2>Two-factor authentication</h2>${ok("mfa")}${msg("mfa")}
${
  a.newBackupCodes
    ? html`<p>Save these backup codes now. Each works once; they will not be shown again.</p>
<div class="codes" aria-label="Backup codes">${a.newBackupCodes.map((c) => html`<span>${c}</span>`)}</div>`
    : ""
}
${
  mfa.enabled
    ? html`<p>Two-factor authentication is <strong>on</strong>. ${mfa.backupCodesLeft} backup codes left.</p>
<p class="sub">To turn it off or make new backup codes, confirm with a code from your app or a backup code${a.hasPassword ? ", or your current password" : ""}.</p>
<form method="post" action="${act("/account/mfa/disable")}" novalidate>
${input("code", "Code from the app or a backup code", { autocomplete: "one-time-code", error: err("mfa", "code") ?? err("mfa", "backup_code") })}
${a.hasPassword ? input("mfa_password", "Or your current password", { type: "password", autocomplete: "current-password", error: err("mfa", "password") }) : ""}
<div class="row"><button class="button secondary" type="submit" formaction="${act("/account/mfa/backup_codes")}">Make new backup codes</button>
<button class="button secondary" type="submit">Turn off two-factor authentication</button></div></form>`
    : html`<p>Scan this QR code with your authenticator app, or enter the key by hand, then type the code it shows.</p>
<img class="qr" src="${mfa.qr}" alt="QR code for your authenticator app" width="200" height="200">
<p>Key: <span class="secret" data-testid="mfa-secret">${mfa.secret}</span></p>
<form method="post" action="${act("/account/mfa/enable")}" novalidate>
${input("code", "Code from the app", { autocomplete: "one-time-code", error: err("mfa", "code") })}
<button type="submit">Turn on two-factor authentication</button></form>`
}</div>

${
  a.apiKeys
    ? html`<div class="card" id="api-keys"><h2>Personal API keys</h2>${ok("api-keys")}${msg("api-keys")}
${a.newApiKey ? html`<p>Your new key (shown once):</p><p class="secret" data-testid="new-api-key">${a.newApiKey}</p>` : ""}
${
  a.apiKeys.length
    ? html`<table><thead><tr><th>Key</th><th>Created</th><th>Expires</th><th></th></tr></thead><tbody>${a.apiKeys.map(
        (
          k,
        ) => html`<tr><td class="secret">${k.id.slice(0, 8)}…</td><td>${date(k.createdAt)}</td><td>${date(k.expiresAt)}</td>
<td><form method="post" action="${act("/account/api_keys/delete")}"><input type="hidden" name="api_key_id" value="${k.id}"><button class="button secondary" type="submit">Delete</button></form></td></tr>`,
      )}</tbody></table>`
    : html`<p class="sub">No personal API keys yet.</p>`
}
<form method="post" action="${act("/account/api_keys")}"><label for="f-exp">Expires after</label>
<select id="f-exp" name="expiration_option" style="width:100%;height:40px;margin-bottom:12px;background:var(--card);color:var(--text);border:1px solid var(--input);border-radius:8px">
<option value="TwoWeeks">Two weeks</option><option value="OneMonth">One month</option><option value="ThreeMonths">Three months</option>
<option value="SixMonths">Six months</option><option value="OneYear" selected>One year</option></select>
${err("api-keys", "expiration_option") ? html`<div class="field-error" role="alert">${err("api-keys", "expiration_option")}</div>` : ""}
<button type="submit">Create API key</button></form></div>`
    : ""
}

<div class="card" id="delete"><h2>Delete account</h2>${msg("delete")}
<p class="sub">This deletes your account, your memberships and your API keys. It cannot be undone.</p>
<form method="post" action="${act("/account/delete")}" novalidate>
${input("confirm", 'Type "DELETE" to confirm', { value: "", error: err("delete", "confirm") })}
<button class="danger" type="submit">Delete my account</button></form></div>`,
  );
}
