import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../server/identity/better-auth/hashed-tokens";
import { registeredRoutes } from "../../server/platform/http";
import { backends, signIn, startProduct, type TestProduct } from "./harness";
import { setUpTenants, type Tenants } from "./tenants";

// The tenant isolation matrix. Every product API route and every identity client (/api/fe/v3),
// session (/api/v1) and backend call has a row here, checked against the live route tables: a
// new route without a row fails the suite. Each row aims a call at Acme's data; each actor makes
// it; the status must match the row, a caller of another organization must never see Acme's data,
// and after every call Acme's rows must be exactly as before.

type Req = { method: InjectOptions["method"]; url: string; payload?: unknown };
type Check = (res: LightMyRequestResponse) => void;

const API_ACTORS = [
  "otherBearer",
  "otherKey",
  "otherOrgKey",
  "otherIngestKey",
  "member",
  "expired",
  "forged",
  "otherIssuer",
  "none",
] as const;
type ApiActor = (typeof API_ACTORS)[number];
const OTHERS: readonly ApiActor[] = ["otherBearer", "otherKey", "otherOrgKey"];

type ApiRow = {
  req(t: Tenants, actor: ApiActor): Req;
  /**
   * Status per actor; the bad tokens, no credentials and Globex's ingestion key (which only
   * POST /v1/usage/events takes) default to 401 (200 for public routes).
   */
  expect: Partial<Record<ApiActor, number>>;
  public?: boolean;
  check?: Check;
};

/** other: the three credentials of Globex's administrator; member: Acme's ordinary member. */
const statuses = (other: number, keys: number, member: number, orgKey = keys) => ({
  otherBearer: other,
  otherKey: keys,
  otherOrgKey: orgKey,
  member,
});
const get = (url: string): Req => ({ method: "GET", url });
const isOther = (a: ApiActor) => OTHERS.includes(a);

/** "YYYY-MM" of now (UTC): the month Acme's events are in. */
const thisMonth = () => new Date().toISOString().slice(0, 7);

/** The usage report's period as query parameters: the last 40 days (UTC) through the default end. */
const reportPeriod = () =>
  `starting_at=${new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10)}&bucket_width=1d`;

const API_ROWS: Record<string, ApiRow> = {
  "GET /v1/accounts/me": { req: () => get("/v1/accounts/me"), expect: statuses(200, 401, 200) },
  "GET /v1/accounts/organization/users": {
    req: () => get("/v1/accounts/organization/users"),
    expect: statuses(200, 401, 200),
  },
  "GET /v1/workspaces/my-workspace": {
    req: () => get("/v1/workspaces/my-workspace"),
    // Globex's administrator is in no workspace of Globex's either.
    expect: statuses(404, 404, 200),
  },
  "PUT /v1/workspaces/my-workspace": {
    // Red Team is Acme's, and the member is not in it either.
    req: (t) => ({
      method: "PUT",
      url: "/v1/workspaces/my-workspace",
      payload: { workspace_uuid: t.ws.redTeam },
    }),
    expect: statuses(404, 404, 404),
  },
  "GET /v1/workspaces/": {
    // Deleted workspaces are for administrators' billing history only: the member's show_deleted
    // is ignored (and Globex has none deleted).
    req: () => get("/v1/workspaces/?show_deleted=true"),
    expect: statuses(200, 200, 200),
    check: (res) => {
      if (res.statusCode === 200)
        expect((res.json() as { deleted_at: string | null }[]).filter((w) => w.deleted_at !== null)).toEqual(
          [],
        );
    },
  },
  "POST /v1/workspaces/": {
    req: (t) => ({
      method: "POST",
      url: "/v1/workspaces/",
      payload: { name: "Pwned", organization_uuid: t.acmeId },
    }),
    expect: statuses(403, 403, 403),
  },
  "GET /v1/workspaces/{workspace_uuid}": {
    req: (t) => get(`/v1/workspaces/${t.ws.safety}`),
    expect: statuses(404, 404, 200),
  },
  "GET /v1/workspaces/{workspace_uuid}#notTheirs": {
    // Members open only the workspaces they belong to: the member is not in Red Team.
    req: (t) => get(`/v1/workspaces/${t.ws.redTeam}`),
    expect: statuses(404, 404, 404),
  },
  "PUT /v1/workspaces/{workspace_uuid}": {
    // An attacker names their own organization: that passes the organization check, not the lookup.
    req: (t, a) => ({
      method: "PUT",
      url: `/v1/workspaces/${t.ws.safety}`,
      payload: { name: "Pwned", organization_uuid: isOther(a) ? t.globexId : t.acmeId },
    }),
    expect: statuses(404, 404, 403),
  },
  "DELETE /v1/workspaces/{workspace_uuid}": {
    req: (t) => ({ method: "DELETE", url: `/v1/workspaces/${t.ws.safety}` }),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/workspaces/{workspace_uuid}/members": {
    req: (t) => get(`/v1/workspaces/${t.ws.safety}/members`),
    expect: statuses(404, 404, 200),
  },
  "GET /v1/workspaces/{workspace_uuid}/members#notTheirs": {
    req: (t) => get(`/v1/workspaces/${t.ws.redTeam}/members`),
    expect: statuses(404, 404, 404),
  },
  "POST /v1/workspaces/{workspace_uuid}/members": {
    req: (t, a) => ({
      method: "POST",
      url: `/v1/workspaces/${t.ws.redTeam}/members?user_email=${isOther(a) ? "other@globex.test" : "member@acme.test"}`,
    }),
    expect: statuses(404, 404, 403),
  },
  "DELETE /v1/workspaces/{workspace_uuid}/members/{user_email}": {
    req: (t) => ({ method: "DELETE", url: `/v1/workspaces/${t.ws.safety}/members/member@acme.test` }),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/operator/workspaces/{workspace_uuid}/restore": {
    req: (t) => ({ method: "POST", url: `/v1/operator/workspaces/${t.ws.oldLab}/restore` }),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/usage/events": {
    // An event id Acme already has, aimed at Acme and its workspace: stored nowhere. Usage comes
    // from ingestion keys only (customer tokens and keys: 403); Globex's key writes only Globex's.
    req: (t) => ({
      method: "POST",
      url: `/v1/usage/events?organization_uuid=${t.acmeId}`,
      payload: {
        events: [
          {
            event_id: "acme-ev-0",
            occurred_at: new Date(Date.now() - 60_000).toISOString(),
            operation: "generation",
            eval_type: "safety",
            workspace_uuid: t.ws.safety,
          },
        ],
      },
    }),
    expect: { ...statuses(403, 403, 403, 403), otherIngestKey: 403 },
  },
  "POST /v1/usage/events#own": {
    // Without organization_uuid Globex's key writes to Globex: Acme's workspace is refused there.
    req: (t) => ({
      method: "POST",
      url: "/v1/usage/events",
      payload: {
        events: [
          {
            event_id: "acme-ev-1",
            occurred_at: new Date(Date.now() - 60_000).toISOString(),
            operation: "generation",
            eval_type: "safety",
            workspace_uuid: t.ws.safety,
          },
        ],
      },
    }),
    expect: { ...statuses(403, 403, 403, 403), otherIngestKey: 200 },
    check: (res) => {
      if (res.statusCode === 200)
        expect(res.json()).toMatchObject({
          accepted: 0,
          rejected: [{ reason: expect.stringMatching(/is not a workspace of this organization/) }],
        });
    },
  },
  // Ingestion keys are managed by provider operators only (bearer token or backend API key).
  "GET /v1/operator/ingest-keys": {
    req: () => get("/v1/operator/ingest-keys"),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/ingest-keys": {
    req: (t) => ({ method: "POST", url: "/v1/operator/ingest-keys", payload: { organization: t.acmeId } }),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/ingest-keys/{ingest_key_uuid}/revoke": {
    req: (t) => ({ method: "POST", url: `/v1/operator/ingest-keys/${t.ingestKeyIds.acme}/revoke` }),
    expect: statuses(403, 401, 403),
  },
  // Usage imported into Acme (backfilled, with a credit) and the demo seed: provider operators
  // only, refused before the body is read.
  "POST /v1/operator/organizations/{organization}/usage/import": {
    req: (t) => ({
      method: "POST",
      url: `/v1/operator/organizations/${t.acmeId}/usage/import?backfill=true`,
      payload: {
        event_id: "acme-import-1",
        occurred_at: new Date(Date.now() - 60_000).toISOString(),
        operation: "generation",
        eval_type: "safety",
        cost: "-100.00",
        notes: "credit",
      },
    }),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/demo/seed": {
    req: () => ({ method: "POST", url: "/v1/operator/demo/seed", payload: { events: 10 } }),
    expect: statuses(403, 401, 403),
  },
  // Every other operator action: provider operators only, whoever's data it names.
  "GET /v1/operator/organizations": {
    req: () => get("/v1/operator/organizations?search=acme"),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/organizations/{organization}": {
    req: (t) => get(`/v1/operator/organizations/${t.acmeId}`),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/price-rules": {
    req: (t) => get(`/v1/operator/price-rules?organization_uuid=${t.acmeId}`),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/price-rules": {
    req: (t) => ({
      method: "POST",
      url: "/v1/operator/price-rules",
      payload: { organization_uuid: t.acmeId, operation: "generation", unit_price_usd: "0" },
    }),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/organizations/{organization}/awaiting-pricing": {
    req: (t) => get(`/v1/operator/organizations/${t.acmeId}/awaiting-pricing`),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/operators": {
    req: () => get("/v1/operator/operators"),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/operators": {
    // Globex's administrator asks to be made an operator: Acme's users' roles are in the snapshot.
    req: (_t, a) => ({
      method: "POST",
      url: "/v1/operator/operators",
      payload: { email: isOther(a) ? "other@globex.test" : "member@acme.test" },
    }),
    expect: statuses(403, 401, 403),
  },
  "DELETE /v1/operator/operators/{email}": {
    req: () => ({ method: "DELETE", url: "/v1/operator/operators/admin@acme.test" }),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/organizations/{organization}/billing-cycles": {
    req: (t) => get(`/v1/operator/organizations/${t.acmeId}/billing-cycles`),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/organizations/{organization}/billing-cycles": {
    req: (t) => ({
      method: "POST",
      url: `/v1/operator/organizations/${t.acmeId}/billing-cycles`,
      payload: { start_date: "2099-01-01" },
    }),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/organizations/{organization}/billing-cycles/close": {
    req: (t) => ({
      method: "POST",
      url: `/v1/operator/organizations/${t.acmeId}/billing-cycles/close`,
      payload: { end_date: "2099-01-01" },
    }),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/organizations/{organization}/payments": {
    req: (t) => get(`/v1/operator/organizations/${t.acmeId}/payments`),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/organizations/{organization}/payments": {
    req: (t) => ({
      method: "POST",
      url: `/v1/operator/organizations/${t.acmeId}/payments`,
      payload: { amount_usd: "-1000", billing_cycle_uuid: t.acmeCycle },
    }),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/organizations/{organization}/workspace-groups": {
    req: (t) => get(`/v1/operator/organizations/${t.acmeId}/workspace-groups`),
    expect: statuses(403, 401, 403),
  },
  "PUT /v1/operator/organizations/{organization}/workspace-groups": {
    req: (t) => ({
      method: "PUT",
      url: `/v1/operator/organizations/${t.acmeId}/workspace-groups`,
      payload: { name: "Pwned", prepaid_usd: "1000000", workspaces: ["Safety Research"] },
    }),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/event-partitions": {
    req: () => get("/v1/operator/event-partitions"),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/event-partitions/{month}/archive": {
    req: () => ({ method: "POST", url: `/v1/operator/event-partitions/${thisMonth()}/archive` }),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/event-partitions/{month}/restore": {
    req: () => ({ method: "POST", url: `/v1/operator/event-partitions/${thisMonth()}/restore` }),
    expect: statuses(403, 401, 403),
  },
  "POST /v1/operator/audit-log/purge": {
    req: () => ({ method: "POST", url: "/v1/operator/audit-log/purge" }),
    expect: statuses(403, 401, 403),
  },
  // Jobs carry every organization's work: provider operators only.
  "GET /v1/operator/jobs": {
    req: () => get("/v1/operator/jobs"),
    expect: statuses(403, 401, 403),
  },
  "GET /v1/operator/jobs/{job_uuid}": {
    req: () => get("/v1/operator/jobs/00000000-0000-4000-8000-000000000000"),
    expect: statuses(403, 401, 403),
  },
  // Usage is the bill: administrators only. A member reads no usage, not even of their own
  // organization (403); Globex's administrator reads Globex's own and never finds Acme's cycle.
  "GET /v1/usage/": {
    req: (t) => get(`/v1/usage/?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/#own": {
    req: (t) => get(`/v1/usage/?workspace_uuid=${t.ws.safety}&sort=cost&page_size=2`),
    expect: statuses(200, 200, 403),
  },
  "GET /v1/usage/records": {
    req: (t) => get(`/v1/usage/records?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/records#own": {
    req: (t) => get(`/v1/usage/records?workspace_uuid=${t.ws.safety}`),
    expect: statuses(200, 200, 403),
  },
  // Filtered by price rule: Acme's own rule matches nothing of Globex's (no error either), and the
  // global rule, shared by both, only Globex's own events.
  "GET /v1/usage/records#price_rule": {
    req: (t) => get(`/v1/usage/records?price_rule_uuid=${t.priceRules.acme}`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toMatchObject({ records: [], total: 0 });
    },
  },
  "GET /v1/usage/records#global_price_rule": {
    req: (t) => get(`/v1/usage/records?price_rule_uuid=${t.priceRules.global}&page_size=100`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode !== 200) return;
      const records = res.json().records as { eval_run_uuid: string; price_rule_version: number }[];
      expect(records.length).toBe(5);
      expect(new Set(records.map((r) => [r.eval_run_uuid, r.price_rule_version].join()))).toEqual(
        new Set(["globex-ev-run,1"]),
      );
    },
  },
  "GET /v1/usage/summary#price_rule": {
    req: (t) => get(`/v1/usage/summary?price_rule_uuid=${t.priceRules.acme}`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json().totals).toMatchObject({ events: 0 });
    },
  },
  "GET /v1/usage/summary": {
    req: (t) => get(`/v1/usage/summary?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/summary#own": {
    req: (t) => get(`/v1/usage/summary?workspace_uuid=${t.ws.safety}`),
    expect: statuses(200, 200, 403),
  },
  "GET /v1/usage/awaiting-pricing#own": {
    // No parameter names an organization: each caller reads its own count (Globex has none).
    req: () => get("/v1/usage/awaiting-pricing"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toEqual({ events: 0, oldest_occurred_at: null });
    },
  },
  "GET /v1/usage/series": {
    req: (t) => get(`/v1/usage/series?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/series#own": {
    req: () => get("/v1/usage/series?grouping=monthly"),
    expect: statuses(200, 200, 403),
  },
  "GET /v1/usage/export.csv": {
    req: (t) => get(`/v1/usage/export.csv?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/export.csv#own": {
    req: () => get("/v1/usage/export.csv"),
    expect: statuses(200, 200, 403),
  },
  // The report names its own period (the last 40 days, through tomorrow): Globex's administrator
  // filtering on Acme's workspace gets no row of it, and Globex's own usage only in CSV.
  "GET /v1/usage/report": {
    req: (t) => get(`/v1/usage/report?${reportPeriod()}&group_by=workspace&workspace_uuid=${t.ws.safety}`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toMatchObject({ data: [], total_rows: 0 });
    },
  },
  "GET /v1/usage/report#price_rule": {
    req: (t) =>
      get(`/v1/usage/report?${reportPeriod()}&group_by=price_rule&price_rule_uuid=${t.priceRules.acme}`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toMatchObject({ data: [], total_rows: 0 });
    },
  },
  "GET /v1/usage/report#csv": {
    req: () => get(`/v1/usage/report?${reportPeriod()}&group_by=workspace,created_by&format=csv`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) {
        expect(res.body).toContain("Globex Lab");
        expect(res.body).not.toMatch(/acme|Safety Research/i);
      }
    },
  },
  // Explain this charge: Acme's cycle, or Acme's workspace or run in the caller's own cycle, is not
  // found; the caller's own total tells nothing of Acme.
  "GET /v1/usage/explain": {
    req: (t) => get(`/v1/usage/explain?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/explain#workspace": {
    req: (t) => get(`/v1/usage/explain?level=workspace&workspace_uuid=${t.ws.safety}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/explain#eval_run": {
    req: (t) =>
      get(`/v1/usage/explain?level=eval_run&workspace_uuid=${t.ws.safety}&eval_run_uuid=acme-ev-run`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/usage/explain#own": {
    req: () => get("/v1/usage/explain"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.body).not.toMatch(/acme|Safety Research|Red Team/i);
    },
  },
  // Eval runs are read from the usage: administrators only, like the records. Starting one takes a
  // workspace the caller may use: an administrator's, or a member's own.
  "GET /v1/eval-runs": {
    req: (t) => get(`/v1/eval-runs?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/eval-runs#own": {
    // Globex's administrator finds Globex's run only, whatever the search.
    req: () => get("/v1/eval-runs?search=ev-run"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200)
        expect(res.json().eval_runs.map((r: { eval_run_uuid: string }) => r.eval_run_uuid)).toEqual([
          "globex-ev-run",
        ]);
    },
  },
  "GET /v1/eval-runs/{eval_run_uuid}": {
    req: () => get("/v1/eval-runs/acme-ev-run"),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/eval-runs": {
    // The member is not in Red Team either.
    req: (t) => ({ method: "POST", url: "/v1/eval-runs", payload: { workspace_uuid: t.ws.redTeam } }),
    expect: statuses(404, 404, 404),
  },
  // Finishing: only a run started in the caller's organization, by its workspace's members and
  // the administrators ("acme-ev-run" is known from events only: never started, so 404 for all).
  "POST /v1/eval-runs/{eval_run_uuid}/finish": {
    req: () => ({ method: "POST", url: "/v1/eval-runs/acme-ev-run/finish" }),
    expect: statuses(404, 404, 404),
  },
  // Outcomes, like the finish: only a run started in the caller's organization; the outcomes of
  // Acme's started run are Acme's, and so is a comparison naming any of Acme's runs.
  "PUT /v1/eval-runs/{eval_run_uuid}/outcomes": {
    req: () => ({
      method: "PUT",
      url: "/v1/eval-runs/acme-ev-run/outcomes",
      payload: { outcomes: { passed: 1 } },
    }),
    expect: statuses(404, 404, 404),
  },
  "PUT /v1/eval-runs/{eval_run_uuid}/outcomes#started": {
    // A started run of Acme's in Red Team: the member is in no such workspace either.
    req: (t) => ({
      method: "PUT",
      url: `/v1/eval-runs/${t.redTeamRun}/outcomes`,
      payload: { outcomes: { passed: 1 } },
    }),
    expect: statuses(404, 404, 404),
  },
  "POST /v1/eval-runs/{eval_run_uuid}/finish#outcomes": {
    req: (t) => ({
      method: "POST",
      url: `/v1/eval-runs/${t.redTeamRun}/finish`,
      payload: { outcomes: { passed: 2, failed: 1 } },
    }),
    expect: statuses(404, 404, 404),
  },
  "GET /v1/eval-runs/compare": {
    req: (t) => get(`/v1/eval-runs/compare?eval_run_uuid=acme-ev-run&eval_run_uuid=${t.redTeamRun}`),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/eval-runs/compare#mixed": {
    // Globex's own run beside Acme's: the whole comparison is a 404, nothing of Acme's shown.
    req: () => get("/v1/eval-runs/compare?eval_run_uuid=globex-ev-run&eval_run_uuid=acme-ev-run"),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/eval-runs#theirs": {
    req: (t) => ({ method: "POST", url: "/v1/eval-runs", payload: { workspace_uuid: t.ws.safety } }),
    expect: statuses(404, 404, 201),
  },
  "GET /v1/accounts/organization/billingcycles": {
    req: (t) => get(`/v1/accounts/organization/billingcycles?billing_cycle_uuid=${t.acmeCycle}`),
    expect: statuses(404, 401, 403),
  },
  "GET /v1/accounts/organization/billingcycles#own": {
    req: () => get("/v1/accounts/organization/billingcycles"),
    expect: statuses(200, 401, 403),
  },
  // The audit log is administrators' only; Globex's administrator reads Globex's own log and
  // never an entry about Acme's workspaces or people.
  "GET /v1/audit-log": {
    req: (t) => get(`/v1/audit-log?target_id=${t.ws.safety}&page_size=200`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toMatchObject({ entries: [], total: 0 });
    },
  },
  "GET /v1/audit-log#csv": {
    req: () => get("/v1/audit-log?format=csv"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.body).not.toMatch(/acme/i);
    },
  },
  // Budgets are administrators' only: Globex's administrator lists Globex's own (never Acme's, which
  // the leak check sees by its uuid) and finds none of Acme's budgets or workspaces (404).
  "GET /v1/budgets": {
    req: () => get("/v1/budgets"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.body).not.toMatch(/Safety Research/);
    },
  },
  "GET /v1/budgets#workspace": {
    req: (t) => get(`/v1/budgets?workspace_uuid=${t.ws.safety}`),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toEqual({ budgets: [] });
    },
  },
  "GET /v1/budgets/alerts": {
    req: () => get("/v1/budgets/alerts"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.body).not.toMatch(/Safety Research/);
    },
  },
  // Open reservations are administrators' only: Globex's sees Globex's own, never Acme's run, and
  // cannot release it (404, as for a run that does not exist).
  "GET /v1/budgets/reservations": {
    req: () => get("/v1/budgets/reservations"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.json()).toMatchObject({ reservations: [], total: 0 });
    },
  },
  "POST /v1/budgets/reservations/{eval_run_uuid}/release": {
    req: (t) => ({ method: "POST", url: `/v1/budgets/reservations/${t.reservedRun}/release` }),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/budgets/{budget_uuid}": {
    req: (t) => get(`/v1/budgets/${t.budgets.acme}`),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/budgets": {
    req: (t) => ({
      method: "POST",
      url: "/v1/budgets",
      payload: { scope: "workspace", workspace_uuid: t.ws.redTeam, amount: "1" },
    }),
    expect: statuses(404, 404, 403),
  },
  // A replay reads only the caller's usage (budgets-simulate.test.ts compares the spend): Globex's
  // administrator replays Globex's and cannot name Acme's workspace (404).
  "POST /v1/budgets/simulate": {
    req: (t) => ({
      method: "POST",
      url: "/v1/budgets/simulate",
      payload: { scope: "workspace", workspace_uuid: t.ws.safety, amount: "1", days: 366 },
    }),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/budgets/simulate#organization": {
    req: () => ({
      method: "POST",
      url: "/v1/budgets/simulate",
      payload: { scope: "organization", amount: "1" },
    }),
    expect: statuses(200, 200, 403),
  },
  "PATCH /v1/budgets/{budget_uuid}": {
    req: (t) => ({ method: "PATCH", url: `/v1/budgets/${t.budgets.acme}`, payload: { amount: "1000" } }),
    expect: statuses(404, 404, 403),
  },
  "DELETE /v1/budgets/{budget_uuid}": {
    req: (t) => ({ method: "DELETE", url: `/v1/budgets/${t.budgets.acme}` }),
    expect: statuses(404, 404, 403),
  },
  // Completeness: administrators only; Globex's administrator sees Globex's watermarks, never Acme's
  // (usage-completeness.test.ts sends them).
  "GET /v1/usage/completeness": {
    req: () => get("/v1/usage/completeness"),
    expect: statuses(200, 200, 403),
  },
  // The allowance: a member asks about their own workspace; nobody about another organization's.
  // The member is told whether work may start and what is free, never the spend or the holds
  // (cost reads are administrators'; budgets-allowance.test.ts compares the two answers).
  "GET /v1/usage/allowance": {
    req: (t) => get(`/v1/usage/allowance?workspace_uuid=${t.ws.safety}`),
    expect: statuses(404, 404, 200),
    check: (res) => {
      if (res.statusCode === 200)
        expect(res.json()).toEqual({
          workspace_uuid: expect.any(String),
          allowed: true,
          remaining: null,
          reason: null,
          free: null,
        });
    },
  },
  "GET /v1/usage/allowance#notTheirs": {
    req: (t) => get(`/v1/usage/allowance?workspace_uuid=${t.ws.redTeam}`),
    expect: statuses(404, 404, 404),
  },
  // Webhook endpoints are administrators' only: Globex's administrator lists and creates Globex's
  // own, and finds none of Acme's (404), whichever id they name.
  "GET /v1/webhook-endpoints": {
    req: () => get("/v1/webhook-endpoints"),
    expect: statuses(200, 200, 403),
    check: (res) => {
      if (res.statusCode === 200) expect(res.body).not.toContain("admin-hooks");
    },
  },
  "POST /v1/webhook-endpoints": {
    req: () => ({
      method: "POST",
      url: "/v1/webhook-endpoints",
      payload: { url: "https://93.184.215.14/pwned", events: ["budget.alert.triggered"] },
    }),
    expect: statuses(201, 201, 403),
  },
  "GET /v1/webhook-endpoints/{endpoint_uuid}": {
    req: (t) => get(`/v1/webhook-endpoints/${t.webhooks.acme}`),
    expect: statuses(404, 404, 403),
  },
  "PATCH /v1/webhook-endpoints/{endpoint_uuid}": {
    req: (t) => ({
      method: "PATCH",
      url: `/v1/webhook-endpoints/${t.webhooks.acme}`,
      payload: { url: "https://93.184.215.14/pwned", enabled: false },
    }),
    expect: statuses(404, 404, 403),
  },
  "DELETE /v1/webhook-endpoints/{endpoint_uuid}": {
    req: (t) => ({ method: "DELETE", url: `/v1/webhook-endpoints/${t.webhooks.acme}` }),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/webhook-endpoints/{endpoint_uuid}/rotate-secret": {
    req: (t) => ({ method: "POST", url: `/v1/webhook-endpoints/${t.webhooks.acme}/rotate-secret` }),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/webhook-endpoints/{endpoint_uuid}/test": {
    req: (t) => ({ method: "POST", url: `/v1/webhook-endpoints/${t.webhooks.acme}/test` }),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/webhook-endpoints/{endpoint_uuid}/deliveries": {
    req: (t) => get(`/v1/webhook-endpoints/${t.webhooks.acme}/deliveries`),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/webhook-endpoints/{endpoint_uuid}/deliveries/{delivery_uuid}/retry": {
    req: (t) => ({
      method: "POST",
      url: `/v1/webhook-endpoints/${t.webhooks.acme}/deliveries/${t.webhooks.acmeDelivery}/retry`,
    }),
    expect: statuses(404, 404, 403),
  },
  "POST /v1/webhook-endpoints/{endpoint_uuid}/deliveries/{delivery_uuid}/retry#viaOwnEndpoint": {
    // Acme's delivery through Globex's own endpoint: not one of that endpoint's deliveries.
    req: (t, a) => ({
      method: "POST",
      url: `/v1/webhook-endpoints/${isOther(a) ? t.webhooks.globex : t.webhooks.acme}/deliveries/${t.webhooks.acmeDelivery}/retry`,
    }),
    expect: statuses(404, 404, 403),
  },
  "GET /v1/openapi.json": {
    req: () => get("/v1/openapi.json"),
    expect: statuses(200, 200, 200),
    public: true,
  },
  // The docs page and the files it loads, served by the documentation plugin.
  "GET /v1/docs": { req: () => get("/v1/docs"), expect: statuses(200, 200, 200), public: true },
  "GET /v1/docs/json": { req: () => get("/v1/docs/json"), expect: statuses(200, 200, 200), public: true },
  "GET /v1/docs/yaml": { req: () => get("/v1/docs/yaml"), expect: statuses(200, 200, 200), public: true },
  "GET /v1/docs/static/*": {
    req: () => get("/v1/docs/static/swagger-ui.css"),
    expect: statuses(200, 200, 200),
    public: true,
  },
  "GET /v1/docs/static/swagger-initializer.js": {
    req: () => get("/v1/docs/static/swagger-initializer.js"),
    expect: statuses(200, 200, 200),
    public: true,
  },
  "GET /v1/docs/static/index.html": {
    req: () => get("/v1/docs/static/index.html"),
    expect: Object.fromEntries(API_ACTORS.map((a) => [a, 302])),
    public: true,
  },
};

/** The same routes without their trailing slash: each answers exactly as its slashed twin. */
for (const key of ["GET /v1/workspaces/", "POST /v1/workspaces/", "GET /v1/usage/"]) {
  const row = API_ROWS[key];
  if (!row) throw new Error(key);
  API_ROWS[key.slice(0, -1)] = {
    ...row,
    req: (t, actor) => {
      const r = row.req(t, actor);
      return { ...r, url: r.url.replace(/\/(\?|$)/, "$1") };
    },
  };
}

function apiHeaders(t: Tenants, actor: ApiActor): Record<string, string> {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  switch (actor) {
    case "otherBearer":
      return bearer(t.tokens.get("other@globex.test") ?? "");
    case "otherKey":
      return { "x-api-key": t.keys.otherPersonal.api_key_token };
    case "otherOrgKey":
      return { "x-api-key": t.keys.otherOrg.api_key_token };
    case "otherIngestKey":
      return { "x-api-key": t.ingestKeys.globex };
    case "member":
      return bearer(t.tokens.get("member@acme.test") ?? "");
    case "expired":
    case "forged":
    case "otherIssuer":
      return bearer(t.badTokens[actor]);
    case "none":
      return {};
  }
}

const FE_ACTORS = [
  "otherSession",
  "member",
  "adminNoCsrf",
  "forgedCookie",
  "expiredSession",
  "bearerOnly",
  "none",
] as const;
type FeActor = (typeof FE_ACTORS)[number];

type FeRow = {
  req(t: Tenants, ids: Record<string, string>): Req;
  /** Status per actor. Unlisted: 401 for calls that need a session, 403 without the CSRF header. */
  expect: Partial<Record<FeActor, number>>;
  /** Why an actor's cell is not run (the call acts on the caller's own session or account only). */
  skip?: Partial<Record<FeActor, string>>;
};

const fe = (method: InjectOptions["method"], path: string, payload?: unknown): Req => ({
  method,
  url: `/api/fe/v3${path}`,
  ...(payload === undefined ? {} : { payload }),
});
/** Calls before sign-in: the caller's credentials do not matter. */
const anyone = (status: number) => ({
  otherSession: status,
  member: status,
  forgedCookie: status,
  expiredSession: status,
  bearerOnly: status,
  none: status,
});
const OWN_ACCOUNT = "acts only on the caller's own account; other suites cover it";

const FE_ROWS: Record<string, FeRow> = {
  "POST /api/fe/v3/api_keys": {
    req: (t) => fe("POST", "/api_keys", { org_id: t.acmeId, expiration_option: "OneMonth" }),
    expect: { otherSession: 403, member: 403 },
  },
  "DELETE /api/fe/v3/api_keys/:id": {
    req: (t) => fe("DELETE", `/api_keys/${t.keys.acmeOrg.api_key_id}`),
    // A member may know the organization's keys exist; an outsider learns nothing.
    expect: { otherSession: 404, member: 403 },
  },
  "GET /api/fe/v3/personal_api_keys": {
    req: () => fe("GET", "/personal_api_keys"),
    expect: { otherSession: 200, member: 200 },
  },
  "GET /api/fe/v3/org_api_keys": {
    req: (t) => fe("GET", `/org_api_keys?org_id=${t.acmeId}`),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/create_org": {
    // Creating one's own organization is allowed to anyone signed in; it never touches Acme.
    req: () => fe("POST", "/create_org", { name: `Side ${randomBytes(3).toString("hex")}` }),
    expect: { otherSession: 200, member: 200 },
  },
  "DELETE /api/fe/v3/delete_org": {
    req: (t) => fe("DELETE", "/delete_org", { org_id: t.acmeId }),
    expect: { otherSession: 404, member: 403 },
  },
  "GET /api/fe/v3/org_settings": {
    req: (t) => fe("GET", `/org_settings?org_id=${t.acmeId}`),
    expect: { otherSession: 404, member: 200 },
  },
  "POST /api/fe/v3/update_org_metadata": {
    req: (t) => fe("POST", "/update_org_metadata", { org_id: t.acmeId, name: "Pwned" }),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/invite_user": {
    req: (t) => fe("POST", "/invite_user", { org_id: t.acmeId, email: "spy@evil.test", role: "Admin" }),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/change_role": {
    req: (t, ids) =>
      fe("POST", "/change_role", { org_id: t.acmeId, user_id: ids["member@acme.test"], role: "Owner" }),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/remove_user": {
    req: (t, ids) => fe("POST", "/remove_user", { org_id: t.acmeId, user_id: ids["admin@acme.test"] }),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/revoke_user_invitation": {
    req: (t) => fe("POST", "/revoke_user_invitation", { org_id: t.acmeId, email: "invitee@acme.test" }),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/join_org/:org_id": {
    req: (t) => fe("POST", `/join_org/${t.acmeId}`),
    // Only joinable organizations are found (Acme is not joinable by domain).
    expect: { otherSession: 404, member: 404 },
  },
  "GET /api/fe/v3/joinable_orgs": {
    req: () => fe("GET", "/joinable_orgs"),
    expect: { otherSession: 200, member: 200 },
  },
  "GET /api/fe/v3/org_membership/:org_id/members": {
    req: (t) => fe("GET", `/org_membership/${t.acmeId}/members`),
    expect: { otherSession: 404, member: 200 },
  },
  "GET /api/fe/v3/org_membership/:org_id/pending_invites": {
    req: (t) => fe("GET", `/org_membership/${t.acmeId}/pending_invites`),
    expect: { otherSession: 404, member: 403 },
  },
  "GET /api/fe/v3/org_membership/:org_id/expired_invites": {
    req: (t) => fe("GET", `/org_membership/${t.acmeId}/expired_invites`),
    expect: { otherSession: 404, member: 403 },
  },
  "POST /api/fe/v3/impersonate": {
    req: (_t, ids) => fe("POST", "/impersonate", { user_id: ids["admin@acme.test"] }),
    expect: { otherSession: 403, member: 403 },
  },
  "POST /api/fe/v3/stop_impersonating": {
    req: () => fe("POST", "/stop_impersonating"),
    expect: { otherSession: 400, member: 400 },
  },
  // Sign-in calls work before a session exists; the credentials sent along do not matter.
  "GET /api/fe/v3/login_state": { req: () => fe("GET", "/login_state"), expect: anyone(200) },
  "POST /api/fe/v3/login": {
    req: () => fe("POST", "/login", { email: "newcomer@acme.test", password: "not-the-password" }),
    expect: anyone(401),
  },
  "POST /api/fe/v3/verify": { req: () => fe("POST", "/verify", { code: "123456" }), expect: anyone(401) },
  "POST /api/fe/v3/verify_backup": {
    req: () => fe("POST", "/verify_backup", { code: "abcde-fghij" }),
    expect: anyone(401),
  },
  "POST /api/fe/v3/login_passwordless": {
    // A fresh address per call: per-address email limits are not what this row is about.
    req: () =>
      fe("POST", "/login_passwordless", { email: `nobody-${randomBytes(4).toString("hex")}@acme.test` }),
    expect: anyone(200),
  },
  "POST /api/fe/v3/forgot_password": {
    req: () =>
      fe("POST", "/forgot_password", { email: `nobody-${randomBytes(4).toString("hex")}@acme.test` }),
    expect: anyone(200),
  },
  "POST /api/fe/v3/resend_email_confirmation": {
    req: () => fe("POST", "/resend_email_confirmation", {}),
    expect: { ...anyone(401), otherSession: 400, member: 400 },
  },
  "POST /api/fe/v3/signup": {
    // Signing up with an Acme member's address must not take over or change that account; the
    // answer is the same as for a new address (the owner is emailed instead), revealing nothing.
    req: () => fe("POST", "/signup", { email: "admin@acme.test", password: "a-new-password-123" }),
    expect: anyone(200),
  },
  "GET /api/fe/v3/login/check": {
    req: () => fe("GET", "/login/check?email=admin@acme.test"),
    expect: anyone(200),
  },
  // Account calls act on the caller's own account only: refused without a session, and with one
  // they are run with answers that change nothing (wrong password, wrong code).
  "POST /api/fe/v3/security_status": {
    req: () => fe("POST", "/security_status", {}),
    expect: { otherSession: 200, member: 200 },
  },
  "POST /api/fe/v3/mfa_enable": {
    req: () => fe("POST", "/mfa_enable", { code: "000000" }),
    expect: { otherSession: 400, member: 400 },
  },
  "POST /api/fe/v3/mfa_disable": {
    req: () => fe("POST", "/mfa_disable", {}),
    expect: { otherSession: 409, member: 409 },
  },
  "POST /api/fe/v3/mfa_backup_codes": {
    req: () => fe("POST", "/mfa_backup_codes", { password: "wrong-password" }),
    expect: { otherSession: 400, member: 400 },
  },
  "POST /api/fe/v3/update_email": {
    req: () => fe("POST", "/update_email", { new_email: "admin@acme.test", password: "wrong-password" }),
    expect: { otherSession: 401, member: 401 },
  },
  "POST /api/fe/v3/update_password": {
    req: () =>
      fe("POST", "/update_password", { password: "brand-new-pass-1", current_password: "wrong-pw-1" }),
    expect: { otherSession: 401, member: 401 },
  },
  "POST /api/fe/v3/update_metadata": {
    req: () => fe("POST", "/update_metadata", { first_name: "Mallory" }),
    expect: { member: 200, otherSession: 200 },
    skip: { member: "changes the member's own name, which the Acme snapshot includes" },
  },
  "DELETE /api/fe/v3/delete_me": {
    req: () => fe("DELETE", "/delete_me"),
    expect: {},
    skip: { otherSession: OWN_ACCOUNT, member: OWN_ACCOUNT },
  },
  // The session calls of @propelauth/javascript.
  "GET /api/v1/refresh_token": {
    req: (t) => ({ method: "GET", url: `/api/v1/refresh_token?active_org_id=${t.acmeId}` }),
    expect: { otherSession: 401, member: 200, adminNoCsrf: 200 },
  },
  "POST /api/v1/logout": {
    // Sent as JSON, as the PropelAuth client does (a post with no type at all is what a cross-site
    // page can send, and is refused).
    req: () => ({ method: "POST", url: "/api/v1/logout", payload: {} }),
    expect: { ...anyone(200), adminNoCsrf: 200 },
    skip: {
      otherSession: "ends the caller's own session, which later cells need",
      member: "ends the caller's own session, which later cells need",
      adminNoCsrf: "ends the caller's own session, which later cells need",
    },
  },
};

const BACKEND_ACTORS = [
  "none",
  "adminSession",
  "adminBearer",
  "apiKeyAsBearer",
  "wrongKey",
  "backend",
] as const;
type BackendActor = (typeof BACKEND_ACTORS)[number];

/** Backend calls: only the backend secret opens them; the last column checks the row's request is sound. */
const BACKEND_ROWS: Record<string, { req(t: Tenants, ids: Record<string, string>): Req; ok: number }> = {
  "GET /api/v1/token_verification_metadata": {
    req: () => get("/api/v1/token_verification_metadata"),
    ok: 200,
  },
  "POST /api/backend/v1/end_user_api_keys/validate": {
    req: (t) => ({
      method: "POST",
      url: "/api/backend/v1/end_user_api_keys/validate",
      payload: { api_key_token: t.keys.acmeOrg.api_key_token },
    }),
    ok: 200,
  },
  "GET /api/backend/v1/user/:userId": {
    req: (_t, ids) => get(`/api/backend/v1/user/${ids["admin@acme.test"]}`),
    ok: 200,
  },
  "GET /api/backend/v1/user/email": {
    req: () => get("/api/backend/v1/user/email?email=admin@acme.test&include_orgs=true"),
    ok: 200,
  },
  "GET /api/backend/v1/user/:userId/operator": {
    req: (_t, ids) => get(`/api/backend/v1/user/${ids["admin@acme.test"]}/operator`),
    ok: 200,
  },
  "GET /api/backend/v1/user/:userId/token_version": {
    req: (_t, ids) => get(`/api/backend/v1/user/${ids["admin@acme.test"]}/token_version`),
    ok: 200,
  },
  "GET /api/backend/v1/org/:orgId": { req: (t) => get(`/api/backend/v1/org/${t.acmeId}`), ok: 200 },
  "GET /api/backend/v1/user/org/:orgId": { req: (t) => get(`/api/backend/v1/user/org/${t.acmeId}`), ok: 200 },
};

const IDENTITY_PREFIXES = ["/api/fe/v3/", "/api/v1/", "/api/backend/"];

describe.each(backends())("tenant isolation on $name", (backend) => {
  let p: TestProduct;
  let t: Tenants;
  let feHeaders: Record<FeActor, Record<string, string>>;
  let backendHeaders: Record<BackendActor, Record<string, string>>;

  beforeAll(async () => {
    p = await startProduct(backend);
    t = await setUpTenants(p);
    await p.identity.app.ready();

    const cookieParts = (cookie: string) => {
      const [pair = ""] = cookie.split("; ").filter((c) => c.includes("session_token"));
      const i = pair.indexOf("=");
      const value = decodeURIComponent(pair.slice(i + 1));
      return { name: pair.slice(0, i), token: value.slice(0, value.lastIndexOf(".")), value };
    };
    // A session cookie whose token was swapped but whose signature was kept.
    const admin = cookieParts(t.cookies.admin);
    const forged = `${admin.name}=${encodeURIComponent(
      `${randomBytes(16).toString("hex")}${admin.value.slice(admin.value.lastIndexOf("."))}`,
    )}`;
    // A real session of the Acme administrator that has since expired.
    const stale = await signIn(p, "admin@acme.test");
    await p.database.db.execute(
      // Sessions are stored by the SHA-256 of their token.
      sql`update identity.session set expires_at = now() - interval '1 hour' where token = ${hashToken(cookieParts(stale).token)}`,
    );
    const ip = (n: number) => ({ "x-forwarded-for": `203.0.113.${n}` });
    feHeaders = {
      otherSession: { cookie: t.cookies.other, ...t.csrf, ...ip(1) },
      member: { cookie: t.cookies.member, ...t.csrf, ...ip(2) },
      adminNoCsrf: { cookie: t.cookies.admin, ...ip(3) },
      forgedCookie: { cookie: forged, ...t.csrf, ...ip(4) },
      expiredSession: { cookie: stale, ...t.csrf, ...ip(5) },
      bearerOnly: { authorization: `Bearer ${t.tokens.get("admin@acme.test")}`, ...t.csrf, ...ip(6) },
      none: { ...t.csrf, ...ip(7) },
    };
    const backendKey = p.identity.ctx.backendApiKey;
    backendHeaders = {
      none: {},
      adminSession: { cookie: t.cookies.admin },
      adminBearer: { authorization: `Bearer ${t.tokens.get("admin@acme.test")}` },
      apiKeyAsBearer: { authorization: `Bearer ${t.keys.acmeOrg.api_key_token}` },
      wrongKey: { authorization: `Bearer ${backendKey.slice(0, -2)}xx` },
      backend: { authorization: `Bearer ${backendKey}` },
    };
  });
  afterAll(async () => p?.dispose());

  /** Runs one cell: status as expected, error JSON on refusals, no Acme data to outsiders, no change. */
  async function cell(
    app: TestProduct["api"]["app"],
    req: Req,
    headers: Record<string, string>,
    want: number,
    opts: { outsider: boolean; check?: Check; errorShape: "api" | "identity" },
  ): Promise<string | null> {
    const before = await t.snapshot();
    const res = await app.inject({
      method: req.method,
      url: req.url,
      headers,
      ...(req.payload === undefined ? {} : { payload: req.payload as object }),
    });
    const after = await t.snapshot();
    const problems: string[] = [];
    if (res.statusCode !== want)
      problems.push(`status ${res.statusCode}, expected ${want}: ${res.body.slice(0, 200)}`);
    if (before !== after) problems.push("Acme's data changed");
    if (res.statusCode >= 400) {
      const body = res.json() as Record<string, unknown>;
      const ok =
        opts.errorShape === "api"
          ? typeof (body.error as { code?: unknown } | undefined)?.code === "string"
          : typeof body.error_code === "string";
      if (!ok) problems.push(`not the error JSON: ${res.body.slice(0, 200)}`);
    }
    if (opts.outsider) {
      // Echoing what the caller sent (e.g. a rejected event's id) reveals nothing.
      const sent = `${req.url} ${JSON.stringify(req.payload ?? null)}`;
      const leaked = t.acmeSecrets.filter((s) => s && res.body.includes(s) && !sent.includes(s));
      if (leaked.length) problems.push(`leaked ${leaked.join(", ")}`);
    }
    try {
      opts.check?.(res);
    } catch (err) {
      problems.push((err as Error).message);
    }
    return problems.length ? problems.join("; ") : null;
  }

  it("has a row for every product API route and every identity API call", () => {
    // Every route the API app registered under /v1, as Fastify reported it (onRoute).
    const api = registeredRoutes(p.api.app)
      .filter((r) => r.url.startsWith("/v1/"))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, "{$1}")}`);
    expect(api.length).toBeGreaterThan(15);
    const rows = new Set(Object.keys(API_ROWS).map((k) => k.split("#")[0] ?? k));
    expect(
      api.filter((r) => !rows.has(r)),
      "product routes without a matrix row",
    ).toEqual([]);
    expect(
      [...rows].filter((r) => !api.includes(r)),
      "rows for routes that no longer exist",
    ).toEqual([]);

    const identity = registeredRoutes(p.identity.app)
      .filter((r) => IDENTITY_PREFIXES.some((prefix) => r.url.startsWith(prefix)))
      .map((r) => `${r.method} ${r.url}`);
    const identityRows = new Set([...Object.keys(FE_ROWS), ...Object.keys(BACKEND_ROWS)]);
    expect(
      identity.filter((r) => !identityRows.has(r)),
      "identity calls without a matrix row",
    ).toEqual([]);
    expect(
      [...identityRows].filter((r) => !identity.includes(r)),
      "rows for calls that are gone",
    ).toEqual([]);
  });

  it.each(Object.keys(API_ROWS))("product API %s", async (key) => {
    const row = API_ROWS[key];
    if (!row) throw new Error(key);
    const failures: string[] = [];
    for (const actor of API_ACTORS) {
      const want = row.expect[actor] ?? (row.public ? 200 : 401);
      const outsider = isOther(actor) || !["member"].includes(actor);
      const problem = await cell(p.api.app, row.req(t, actor), apiHeaders(t, actor), want, {
        outsider: outsider && !row.public,
        check: row.check,
        errorShape: "api",
      });
      if (problem) failures.push(`${actor}: ${problem}`);
    }
    expect(failures).toEqual([]);
  });

  it.each(Object.keys(FE_ROWS))("identity %s", async (key) => {
    const row = FE_ROWS[key];
    if (!row) throw new Error(key);
    const failures: string[] = [];
    const isFe = key.includes("/api/fe/v3/");
    for (const actor of FE_ACTORS) {
      if (row.skip?.[actor]) continue;
      const want = row.expect[actor] ?? (actor === "adminNoCsrf" && isFe ? 403 : 401);
      const problem = await cell(p.identity.app, row.req(t, t.ids), feHeaders[actor], want, {
        outsider: actor !== "member" && actor !== "adminNoCsrf",
        errorShape: "identity",
      });
      if (problem) failures.push(`${actor}: ${problem}`);
    }
    expect(failures).toEqual([]);
  });

  it.each(Object.keys(BACKEND_ROWS))("backend %s", async (key) => {
    const row = BACKEND_ROWS[key];
    if (!row) throw new Error(key);
    const failures: string[] = [];
    for (const actor of BACKEND_ACTORS) {
      const want = actor === "backend" ? row.ok : 401;
      const problem = await cell(p.identity.app, row.req(t, t.ids), backendHeaders[actor], want, {
        outsider: actor !== "backend",
        errorShape: "identity",
      });
      if (problem) failures.push(`${actor}: ${problem}`);
    }
    expect(failures).toEqual([]);
  });
});
