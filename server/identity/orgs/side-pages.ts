import { alert, html, input, page, type SafeHtml } from "../hosted-pages/html";
import { withRt } from "../hosted-pages/kit";

// Smaller organization pages: create an organization, accept an invitation, SAML (unavailable).

export function createOrgPage(s: {
  values?: Record<string, string | undefined>;
  errors?: Record<string, string>;
  message?: string;
  /** The hosted pages' `rt`, kept on the form; returnUrl: where "Back to the console" goes. */
  rt?: string;
  returnUrl?: string;
}) {
  const v = s.values ?? {};
  const box = (name: string, label: string) =>
    html`<div class="field" style="display:flex;gap:8px;align-items:center"><input type="checkbox" style="width:16px;height:16px"
 id="f-${name}" name="${name}" value="on" ${v[name] === "on" ? html`checked` : ""}><label for="f-${name}" style="margin:0">${label}</label></div>`;
  return page(
    "Create organization",
    html`<div class="card"><h1>Create an organization</h1><p class="sub">You become its Owner and can invite your team.</p>
${alert(s.message)}
<form method="post" action="${withRt("/create_org", s.rt)}" novalidate>
${input("name", "Organization name", { value: v.name, autofocus: true, error: s.errors?.name })}
${box("autojoin_by_domain", "Let people with my email domain join")}
${box("restrict_to_domain", "Only invite people with my email domain")}
<button type="submit">Create organization</button></form>
${s.returnUrl ? html`<p class="sub"><a href="${s.returnUrl}">Back to the console</a></p>` : ""}</div>`,
  );
}

export type AcceptView =
  | { kind: "invalid"; consoleUrl: string }
  | { kind: "sign_in"; orgName: string; email: string; role: string; loginUrl: string; signupUrl: string }
  | { kind: "wrong_user"; orgName: string; email: string; signedInAs: string; message?: string }
  | { kind: "confirm"; id: string; orgName: string; email: string; role: string; message?: string };

function acceptBody(v: AcceptView): SafeHtml {
  switch (v.kind) {
    case "invalid":
      return html`<h1>Invitation not valid</h1><p class="sub">This invitation has expired, was revoked or was already used.
Ask an administrator of the organization to invite you again.</p><a class="button" href="${v.consoleUrl}">Go to the console</a>`;
    case "sign_in":
      return html`<h1>Join ${v.orgName}</h1><p class="sub">You were invited as ${v.role} with ${v.email}.
Sign in or create an account with this email to accept.</p>
<div class="stack"><a class="button" href="${v.signupUrl}">Create an account</a>
<a class="button secondary" href="${v.loginUrl}">I already have an account</a></div>`;
    case "wrong_user":
      return html`<h1>Join ${v.orgName}</h1>${alert(v.message)}<p class="sub">This invitation was sent to ${v.email},
but you are signed in as ${v.signedInAs}. Sign out, then open the invitation link again.</p>
<form method="post" action="/logout"><button class="button secondary" type="submit">Sign out</button></form>`;
    case "confirm":
      return html`<h1>Join ${v.orgName}</h1>${alert(v.message)}<p class="sub">You were invited as ${v.role}. You are signed in as ${v.email}.</p>
<form method="post" action="/accept_invite?id=${encodeURIComponent(v.id)}"><button type="submit">Accept invitation</button></form>`;
  }
}

export function acceptInvitePage(v: AcceptView): string {
  return page("Invitation", html`<div class="card">${acceptBody(v)}</div>`);
}
