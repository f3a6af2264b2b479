import { html, SafeHtml } from "../hosted-pages/html";

// Extra rules for the organization pages on top of html.ts's card look: these pages hold tables,
// selects and checkboxes, and need a wider column than the sign-in card.

const CSS = `
main:has(.wide){max-width:920px}
.wide .card{margin-bottom:16px}
h2{margin:0 0 12px;font-size:16px;font-weight:600;color:rgba(255,255,255,.88)}
table{width:100%;border-collapse:collapse;margin-bottom:12px}
th,td{padding:8px;border-bottom:1px solid var(--border);text-align:left;vertical-align:middle}
th{color:var(--muted);font-weight:500}
select{height:32px;padding:0 30px 0 11px;border:1px solid var(--input);border-radius:8px;color:var(--text);font:inherit;
appearance:none;-webkit-appearance:none;cursor:pointer;outline:none;transition:border-color .2s,box-shadow .2s;
background:var(--card) url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 12 12'%3E%3Cpath d='M2.5 4.5 6 8l3.5-3.5' fill='none' stroke='%23ffffff73' stroke-width='1.5' stroke-linecap='round' stroke-linejoin='round'/%3E%3C/svg%3E") no-repeat right 10px center/12px}
select:hover{border-color:var(--primary-hover)}
select:focus{border-color:var(--primary);box-shadow:0 0 0 2px rgba(0,60,180,.35)}
select option{background:var(--card);color:var(--text)}
.inline{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:0}
.inline input[type=email],.inline input[type=search]{flex:1;min-width:180px;height:32px}
button.small,.button.small{width:auto;height:32px;padding:0 12px}
button.danger{background:transparent;border:1px solid var(--error-border);color:#e86e6b}
button.danger:hover{background:var(--error-bg)}
.check{display:flex;gap:8px;align-items:center;margin-bottom:12px}
.check input{flex:none;width:16px;height:16px;padding:0;margin:0;border:1px solid var(--input);border-radius:4px;
background:var(--card);appearance:none;-webkit-appearance:none;cursor:pointer;transition:border-color .2s,background-color .2s}
.check input:hover{border-color:var(--primary-hover)}
.check input:checked{border-color:var(--primary);background:var(--primary) url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Cpath d='M4 8.5 7 11.5 12 5' fill='none' stroke='%23fff' stroke-width='2' stroke-linecap='round' stroke-linejoin='round'/%3E%3C/svg%3E") no-repeat center/12px}
.check input:focus-visible{outline:2px solid var(--primary-hover);outline-offset:2px}
.check label{margin:0;cursor:pointer}
.notice{margin-bottom:16px;padding:9px 12px;border:1px solid #274916;border-radius:8px;background:#162312}
.tag{display:inline-block;padding:0 7px;margin-right:4px;border:1px solid var(--input);border-radius:4px;font-size:12px}
.muted{color:var(--muted)}
.pager{display:flex;gap:12px;justify-content:flex-end}
button.small,.button.small{white-space:nowrap}
@media (max-width:600px){
.wide table,.wide tbody,.wide tr,.wide td{display:block;width:100%}
.wide thead{display:none}
.wide tr{padding:8px 0;border-bottom:1px solid var(--border)}
.wide td{border:0;padding:4px 0}
}
`;

export const orgStyle = html`<style>${new SafeHtml(CSS)}</style>`;

export function notice(message: string | undefined): SafeHtml | string {
  return message ? html`<div class="notice" role="status">${message}</div>` : "";
}
