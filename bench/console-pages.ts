// The console's list pages as the browser benchmarks know them: where each is, what shows its rows,
// and its floor's one list call. console.ts measures them beside their floors; console-trace.ts,
// react-render.ts and package-profile.ts look inside one visit of a page, and stop at the same
// first row.

/**
 * A page: where it is, what shows its rows, and its floor's one list call (the call the page
 * itself makes for its rows; "identity:" is the identity service's client API).
 */
export type PageSpec = {
  key: string;
  label: string;
  path: string;
  rows: string;
  chart: boolean;
  floor: string;
};

/** A table's first row, as antd renders it (not the measuring row or the empty row). */
export const ROWS = ".ant-table-tbody tr.ant-table-row";

export const PAGES: PageSpec[] = [
  {
    key: "billing",
    label: "Billing",
    path: "/",
    rows: ROWS,
    chart: true,
    floor: "/v1/usage/records?page=1&page_size=10&sort=-date",
  },
  {
    key: "workspaces",
    label: "Workspaces",
    path: "/organization/workspaces",
    // The workspaces are cards, not table rows.
    rows: ".ant-col .ant-card",
    chart: false,
    floor: "/v1/workspaces/",
  },
  {
    key: "users",
    label: "Users",
    path: "/users",
    rows: ROWS,
    chart: false,
    floor: "identity:/org_membership/{orgId}/members?page_number=0&page_size=10",
  },
  {
    key: "api-keys",
    label: "API Keys",
    path: "/account/api-keys",
    rows: ROWS,
    chart: false,
    floor: "identity:/personal_api_keys?page_number=0&page_size=10",
  },
  {
    key: "eval-runs",
    label: "Eval Runs",
    path: "/eval-runs",
    rows: ROWS,
    chart: false,
    floor: "/v1/eval-runs?page=1&page_size=10&sort=-started_at",
  },
  {
    key: "audit-log",
    label: "Audit Log",
    path: "/organization/audit-log",
    rows: ROWS,
    chart: false,
    floor: "/v1/audit-log?page=1&page_size=25",
  },
];

/**
 * An expression for a script in the page: what shows the document's rows, its page's selector, or
 * a table's first row on a page not listed.
 */
export const ROWS_SELECTOR_IN_PAGE = `(${JSON.stringify(
  Object.fromEntries(PAGES.map((p) => [p.path, p.rows])),
)}[location.pathname] || ${JSON.stringify(ROWS)})`;

/**
 * A script for the page (an init script): on each animation frame until they show, looks for the
 * rows of the document's own path and, the first time, runs `onRows` (a statement with `now`, the
 * page's clock, in scope). It reads the path in the page, so one script serves every page visited.
 */
export function rowsProbe(onRows: string): string {
  return `(() => {
  const selector = ${ROWS_SELECTOR_IN_PAGE};
  const tick = () => {
    if (document.querySelector(selector)) { const now = performance.now(); ${onRows}; return; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;
}
