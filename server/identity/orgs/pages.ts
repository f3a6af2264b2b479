import { alert, html, page, type SafeHtml } from "../hosted-pages/html";
import { withRt } from "../hosted-pages/kit";
import { notice, orgStyle } from "./page-style";

// The hosted organization page: members, invitations, invite form and settings. Each part is
// rendered only when the viewer has the permission behind it; every action is a plain form.

type Member = {
  user_id: string;
  email: string;
  role: string;
  additional_roles: string[];
  possible_roles: string[];
  can_be_deleted: boolean;
};
type Invite = { email: string; role: string; additional_roles: string[]; expires_at_seconds: number };
export type OrgSection = "members" | "invite" | "invites" | "settings";

export type OrgPageView = {
  org: {
    id: string;
    name: string;
    domain: string | null;
    autojoin: boolean;
    restrict: boolean;
    multiRole: boolean;
  };
  me: { email: string; roles: string[] };
  can: { invite: boolean; settings: boolean; saml: boolean };
  members?: { users: Member[]; total: number; pageNumber: number; hasMore: boolean; q: string };
  pending?: Invite[];
  expired?: Invite[];
  roleOptions: string[];
  notice?: string;
  errors?: Partial<Record<OrgSection, string>>;
  values?: { email?: string; role?: string };
  /** The hosted pages' `rt` (the way back to the console), kept on every link and form. */
  rt?: string;
  /** "Back to the console": the decoded `rt`, else the console. */
  returnUrl?: string;
};

const date = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
/** A form's action keeping the page's `rt`. */
const act = (v: OrgPageView, path: string) => withRt(path, v.rt);
const roleTags = (role: string, extra: string[]) =>
  [role, ...extra].map((r) => html`<span class="tag">${r}</span>`);

function roleSelect(name: string, options: string[], selected: string, label: string): SafeHtml {
  return html`<select name="${name}" aria-label="${label}">${options.map(
    (r) => html`<option value="${r}" ${r === selected ? html`selected` : ""}>${r}</option>`,
  )}</select>`;
}

/** Additional roles are offered only in a multi_role organization. */
function extraRoles(v: OrgPageView, current: string[], idPrefix: string): SafeHtml | string {
  if (!v.org.multiRole) return "";
  return html`${v.roleOptions.map(
    (r) => html`<label class="inline" for="${idPrefix}-${r}"><input type="checkbox" id="${idPrefix}-${r}"
 name="additional_${r}" value="on" ${current.includes(r) ? html`checked` : ""}> ${r}</label>`,
  )}`;
}

function membersCard(v: OrgPageView): SafeHtml | string {
  const m = v.members;
  if (!m) return "";
  const base = withRt(
    `/org?id=${encodeURIComponent(v.org.id)}${m.q ? `&q=${encodeURIComponent(m.q)}` : ""}`,
    v.rt,
  );
  const rows = m.users.map(
    (u) => html`<tr><td>${u.email}</td><td>${roleTags(u.role, u.additional_roles)}</td><td>
${
  u.possible_roles.length
    ? html`<form class="inline" method="post" action="${act(v, "/org/change_role")}">${hidden("org_id", v.org.id)}${hidden("user_id", u.user_id)}
${roleSelect("role", u.possible_roles, u.role, `Role of ${u.email}`)}${extraRoles(v, u.additional_roles, `r-${u.user_id}`)}
<button class="small secondary button" type="submit">Change role</button></form>`
    : ""
}</td><td>${
      u.can_be_deleted
        ? html`<form class="inline" method="post" action="${act(v, "/org/remove_user")}">${hidden("org_id", v.org.id)}${hidden("user_id", u.user_id)}
<button class="small danger" type="submit" aria-label="Remove ${u.email}">Remove</button></form>`
        : ""
    }</td></tr>`,
  );
  return html`<section class="card" aria-labelledby="members-h"><h2 id="members-h">Members (${m.total})</h2>
${alert(v.errors?.members)}
<form class="inline" method="get" action="/org" role="search">${hidden("id", v.org.id)}${v.rt ? hidden("rt", v.rt) : ""}
<input type="search" name="q" value="${m.q}" aria-label="Search members by email" placeholder="Search by email">
<button class="small secondary button" type="submit">Search</button></form>
<table><thead><tr><th>Email</th><th>Role</th><th></th><th></th></tr></thead><tbody>${rows}</tbody></table>
<div class="pager">${m.pageNumber > 0 ? html`<a href="${base}&page=${m.pageNumber - 1}">Previous</a>` : ""}
${m.hasMore ? html`<a href="${base}&page=${m.pageNumber + 1}">Next</a>` : ""}</div></section>`;
}

function inviteTable(v: OrgPageView, title: string, list: Invite[], expired: boolean): SafeHtml {
  if (list.length === 0) return html`<h2>${title}</h2><p class="muted">None.</p>`;
  return html`<h2>${title}</h2><table><thead><tr><th>Email</th><th>Role</th><th>${expired ? "Expired" : "Expires"}</th><th></th></tr></thead><tbody>
${list.map(
  (
    i,
  ) => html`<tr><td>${i.email}</td><td>${roleTags(i.role, i.additional_roles)}</td><td>${date(i.expires_at_seconds)}</td><td>
<form class="inline" method="post" action="${act(v, "/org/revoke_invite")}">${hidden("org_id", v.org.id)}${hidden("email", i.email)}
<button class="small danger" type="submit" aria-label="Revoke invitation of ${i.email}">Revoke</button></form></td></tr>`,
)}</tbody></table>`;
}

function invitesCard(v: OrgPageView): SafeHtml | string {
  if (!v.can.invite) return "";
  const val = v.values ?? {};
  return html`<section class="card" aria-labelledby="invite-h"><h2 id="invite-h">Invite a member</h2>
${alert(v.errors?.invite)}
<form class="inline" method="post" action="${act(v, "/org/invite")}">${hidden("org_id", v.org.id)}
<input type="email" name="email" value="${val.email ?? ""}" aria-label="Email to invite" placeholder="name@company.com" required>
${roleSelect("role", v.roleOptions, val.role ?? "Member", "Role to invite as")}${extraRoles(v, [], "inv")}
<button class="small button" type="submit">Send invitation</button></form></section>
<section class="card" aria-label="Invitations">${alert(v.errors?.invites)}
${inviteTable(v, "Pending invitations", v.pending ?? [], false)}${inviteTable(v, "Expired invitations", v.expired ?? [], true)}</section>`;
}

function settingsCard(v: OrgPageView): SafeHtml | string {
  if (!v.can.settings) return "";
  const o = v.org;
  const box = (name: string, label: string, on: boolean) =>
    html`<div class="check"><input type="checkbox" id="s-${name}" name="${name}" value="on" ${on ? html`checked` : ""}><label for="s-${name}" style="margin:0">${label}</label></div>`;
  return html`<section class="card" aria-labelledby="settings-h"><h2 id="settings-h">Settings</h2>
${alert(v.errors?.settings)}
<form method="post" action="${act(v, "/org/settings")}">${hidden("org_id", o.id)}
<div class="field"><label for="s-name">Organization name</label><input id="s-name" name="name" value="${o.name}" maxlength="100" required></div>
${box("autojoin_by_domain", `Let anyone with a confirmed ${o.domain ?? "company"} email join`, o.autojoin)}
${box("restrict_to_domain", `Only invite ${o.domain ?? "company"} emails`, o.restrict)}
<button class="small button" type="submit">Save settings</button></form></section>`;
}

export function orgPage(v: OrgPageView): string {
  return page(
    v.org.name,
    html`${orgStyle}<div class="wide"><div class="card"><h1>${v.org.name}</h1>
<p class="sub">Signed in as ${v.me.email} · ${v.me.roles.join(", ")}${v.org.domain ? ` · ${v.org.domain}` : ""}</p>
${notice(v.notice)}${v.can.saml ? html`<a href="/saml?id=${encodeURIComponent(v.org.id)}">Single sign-on (SAML)</a>` : ""}
${v.returnUrl ? html`<div class="row"><a class="button secondary" href="${v.returnUrl}">Back to the console</a></div>` : ""}</div>
${membersCard(v)}${invitesCard(v)}${settingsCard(v)}</div>`,
  );
}
