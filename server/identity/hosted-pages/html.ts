// Hosted identity pages are server-rendered: they work without JavaScript, post real forms and
// keep what the user typed when a field is refused. The look follows antd's dark theme tokens.

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Tagged template that escapes every interpolation unless it is already `SafeHtml`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    const piece = Array.isArray(v)
      ? v.map((x) => (x instanceof SafeHtml ? x.value : escapeHtml(x))).join("")
      : v instanceof SafeHtml
        ? v.value
        : v === false || v === null || v === undefined
          ? ""
          : escapeHtml(v);
    out += piece + (strings[i + 1] ?? "");
  });
  return new SafeHtml(out);
}

const STYLE = `
:root{color-scheme:dark;--bg:#000;--card:#141414;--border:#303030;--input:#424242;--text:rgba(255,255,255,.85);
--muted:rgba(255,255,255,.45);--primary:#1668dc;--primary-hover:#3c89e8;--error:#dc4446;--error-bg:#2c1618;--error-border:#5b2526}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--text);
font:14px/1.5714 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{width:100%;max-width:400px;padding:16px}
.brand{display:flex;align-items:center;gap:8px;justify-content:center;margin-bottom:24px;font-size:20px;font-weight:600}
.brand svg{width:28px;height:28px}
.card{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:32px 24px}
h1{margin:0 0 4px;font-size:20px;font-weight:600;color:rgba(255,255,255,.88)}
.sub{margin:0 0 24px;color:var(--muted)}
label{display:block;margin-bottom:8px}
.field{margin-bottom:20px}
input{width:100%;height:40px;padding:6px 11px;border:1px solid var(--input);border-radius:8px;background:var(--card);
color:var(--text);font:inherit;outline:none;transition:border-color .2s,box-shadow .2s}
input:hover{border-color:var(--primary-hover)}
input:focus{border-color:var(--primary);box-shadow:0 0 0 2px rgba(0,60,180,.35)}
input[aria-invalid=true]{border-color:var(--error)}
.field-error{margin-top:4px;color:var(--error)}
button,.button{display:inline-flex;align-items:center;justify-content:center;width:100%;height:40px;border:0;border-radius:8px;
background:var(--primary);color:#fff;font:inherit;font-weight:500;cursor:pointer;text-decoration:none}
button:hover,.button:hover{background:var(--primary-hover)}
button:focus-visible,a:focus-visible{outline:2px solid var(--primary-hover);outline-offset:2px}
.button.secondary{background:transparent;border:1px solid var(--input);color:var(--text)}
.alert{margin-bottom:20px;padding:9px 12px;border:1px solid var(--error-border);border-radius:8px;background:var(--error-bg)}
a{color:var(--primary-hover)}
.foot{margin-top:20px;text-align:center;color:var(--muted)}
dl{margin:0 0 20px}dt{color:var(--muted)}dd{margin:0 0 12px}
.stack{display:grid;gap:12px}
`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#1668dc"/>
<path d="M9 16.5l4.5 4.5L23 11" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

const LOGO = html`<svg viewBox="0 0 32 32" aria-hidden="true"><rect width="32" height="32" rx="8" fill="#1668dc"/>
<path d="M9 16.5l4.5 4.5L23 11" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Eval Console</title><link rel="icon" type="image/svg+xml" href="/favicon.svg"><style>${new SafeHtml(STYLE)}</style></head>
<body><main><div class="brand">${LOGO}<span>Eval Console</span></div>${body}</main></body></html>`.value;
}

export type FieldErrors = Record<string, string | undefined>;

export function input(
  name: string,
  label: string,
  opts: {
    type?: string;
    value?: string;
    autocomplete?: string;
    autofocus?: boolean;
    error?: string | undefined;
  },
): SafeHtml {
  const id = `f-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="${opts.type ?? "text"}" value="${opts.value ?? ""}"
 autocomplete="${opts.autocomplete ?? "off"}" ${opts.autofocus ? new SafeHtml("autofocus") : ""}
 aria-invalid="${opts.error ? "true" : "false"}" ${opts.error ? new SafeHtml(`aria-describedby="${id}-error"`) : ""}>
${opts.error ? html`<div class="field-error" id="${id}-error" role="alert">${opts.error}</div>` : ""}</div>`;
}

export function alert(message: string | undefined): SafeHtml | string {
  return message ? html`<div class="alert" role="alert">${message}</div>` : "";
}

/** A short result page with one way on. */
export function messagePage(
  title: string,
  text: string,
  link: { href: string; label: string },
  alertText?: string,
) {
  return page(
    title,
    html`<div class="card"><h1>${title}</h1>${alert(alertText)}<p class="sub">${text}</p>
<a class="button" href="${link.href}">${link.label}</a></div>`,
  );
}
