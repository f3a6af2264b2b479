// A small in-memory budgets API for page tests: GET/POST /v1/budgets, PATCH/DELETE one, and the
// workspaces the dialog offers. Every change request is kept (`calls`) so a test can assert what
// the console sent; `refuse` makes the next change answer with the API's error shape.
import { HttpResponse, http } from "msw";
import type { Budget } from "../../../contract/budgets";
import { api, apiError } from "./render-page";

export const WS = {
  alpha: "aaaaaaaa-0000-4000-8000-000000000001",
  beta: "aaaaaaaa-0000-4000-8000-000000000002",
};

export const workspaceRows = [
  { workspace_uuid: WS.alpha, name: "Alpha", organization_uuid: "org-1", organization_name: "Acme AI" },
  { workspace_uuid: WS.beta, name: "Beta", organization_uuid: "org-1", organization_name: "Acme AI" },
];

export function budget(over: Partial<Budget> = {}): Budget {
  return {
    budget_uuid: "bbbbbbbb-0000-4000-8000-000000000001",
    scope: "workspace",
    workspace_uuid: WS.alpha,
    workspace_name: "Alpha",
    amount: "100.00",
    thresholds: [50, 80, 100],
    hard_limit: false,
    spent: "42.00",
    percent_used: 42,
    triggered_thresholds: [],
    cycle_start: "2026-11-01T00:00:00.000Z",
    cycle_end: "2026-12-01T00:00:00.000Z",
    created_at: "2026-11-02T00:00:00.000Z",
    updated_at: "2026-11-02T00:00:00.000Z",
    ...over,
  };
}

type Call = { method: string; path: string; body: unknown };

export function budgetsApi(initial: Budget[] = []) {
  let rows = [...initial];
  const calls: Call[] = [];
  let refusal: { status: number; code: string; message: string } | null = null;
  let next = 10;

  const refused = () => {
    if (!refusal) return null;
    const { status, code, message } = refusal;
    refusal = null;
    return apiError(status, code, message);
  };

  const handlers = [
    http.get(api("/v1/budgets"), () => HttpResponse.json({ budgets: rows })),
    http.get(api("/v1/workspaces/"), () => HttpResponse.json(workspaceRows)),
    http.post(api("/v1/budgets"), async ({ request }) => {
      const body = (await request.json()) as Partial<Budget>;
      calls.push({ method: "POST", path: "/v1/budgets", body });
      const error = refused();
      if (error) return error;
      const created = budget({
        ...body,
        budget_uuid: `bbbbbbbb-0000-4000-8000-0000000000${next++}`,
        workspace_name: workspaceRows.find((w) => w.workspace_uuid === body.workspace_uuid)?.name ?? null,
        spent: "0.00",
        percent_used: 0,
      });
      rows = [...rows, created];
      return HttpResponse.json(created, { status: 201 });
    }),
    http.patch(api("/v1/budgets/:id"), async ({ request, params }) => {
      const body = (await request.json()) as Partial<Budget>;
      calls.push({ method: "PATCH", path: `/v1/budgets/${params.id}`, body });
      const error = refused();
      if (error) return error;
      rows = rows.map((row) => (row.budget_uuid === params.id ? { ...row, ...body } : row));
      return HttpResponse.json(rows.find((row) => row.budget_uuid === params.id));
    }),
    http.delete(api("/v1/budgets/:id"), ({ params }) => {
      calls.push({ method: "DELETE", path: `/v1/budgets/${params.id}`, body: null });
      const error = refused();
      if (error) return error;
      rows = rows.filter((row) => row.budget_uuid !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
  ];

  return {
    handlers,
    calls,
    refuse: (status: number, code: string, message: string) => {
      refusal = { status, code, message };
    },
  };
}
