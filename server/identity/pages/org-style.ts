import { html, SafeHtml } from "./html";

// Extra rules for the organization pages on top of html.ts's card look: these pages hold tables,
// selects and checkboxes, and need a wider column than the sign-in card.

const CSS = `
main:has(.wide){max-width:920px}
.wide .card{margin-bottom:16px}
h2{margin:0 0 12px;font-size:16px;font-weight:600;color:rgba(255,255,255,.88)}
table{width:100%;border-collapse:collapse;margin-bottom:12px}
th,td{padding:8px;border-bottom:1px solid var(--border);text-align:left;vertical-align:middle}
th{color:var(--muted);font-weight:500}
select{height:32px;padding:0 8px;border:1px solid var(--input);border-radius:6px;background:var(--card);color:var(--text);font:inherit}
.inline{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:0}
.inline input[type=email],.inline input[type=search]{flex:1;min-width:180px;height:32px}
button.small,.button.small{width:auto;height:32px;padding:0 12px}
button.danger{background:transparent;border:1px solid var(--error-border);color:#e86e6b}
button.danger:hover{background:var(--error-bg)}
.check{display:flex;gap:8px;align-items:center;margin-bottom:12px}
.check input{width:16px;height:16px}
.notice{margin-bottom:16px;padding:9px 12px;border:1px solid #274916;border-radius:8px;background:#162312}
.tag{display:inline-block;padding:0 7px;margin-right:4px;border:1px solid var(--input);border-radius:4px;font-size:12px}
.muted{color:var(--muted)}
.pager{display:flex;gap:12px;justify-content:flex-end}
`;

export const orgStyle = html`<style>${new SafeHtml(CSS)}</style>`;

export function notice(message: string | undefined): SafeHtml | string {
  return message ? html`<div class="notice" role="status">${message}</div>` : "";
}
