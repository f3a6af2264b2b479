import { sql } from "drizzle-orm";
import { importPKCS8, SignJWT } from "jose";
import { loadSigningKeys } from "../../server/identity/settings";
import { budgetNotifierOf } from "../../server/metering/budgets/notify";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { AUTH, signIn, type TestProduct } from "./harness";
import { setUpWorkspaces } from "./workspaces-fixture";

export type Tenants = Awaited<ReturnType<typeof setUpTenants>>;

/** Rows of a raw query: both drivers answer `{rows}`. */
export const rowsOf = <T = Record<string, unknown>>(result: unknown) => (result as { rows: T[] }).rows;

const PAST = new Date("2020-01-01T00:00:00Z");

/**
 * Two organizations with data of their own, for isolation and bad-input suites: Acme (the demo:
 * admin, member, newcomer, three workspaces, one deleted workspace, a pending invitation, usage
 * events) and Globex (other@globex.test, its administrator, with a workspace and usage events),
 * plus every credential an attacker might hold and an Acme-scoped snapshot of the database.
 */
export async function setUpTenants(p: TestProduct) {
  const f = await setUpWorkspaces(p);
  const db = p.database.db;
  const cookies = {
    admin: await signIn(p, "admin@acme.test"),
    member: await signIn(p, "member@acme.test"),
    other: await signIn(p, "other@globex.test"),
  };
  const csrf = { "x-csrf-token": "-.-" };

  async function newKey(cookie: string, orgId?: string) {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/api_keys",
      headers: { cookie, ...csrf },
      payload: { ...(orgId ? { org_id: orgId } : {}), expiration_option: "OneMonth" },
    });
    if (res.statusCode !== 200) throw new Error(`API key: ${res.statusCode} ${res.body}`);
    return res.json() as { api_key_id: string; api_key_token: string };
  }
  const keys = {
    acmeOrg: await newKey(cookies.admin, f.acmeId),
    otherPersonal: await newKey(cookies.other),
    otherOrg: await newKey(cookies.other, f.globexId),
  };
  // The eval services' ingestion keys: one per organization.
  const acmeIngest = await createIngestKey(db, { name: "evals", organizationUuid: f.acmeId });
  const globexIngest = await createIngestKey(db, { name: "evals", organizationUuid: f.globexId });
  const ingestKeys = { acme: acmeIngest.token, globex: globexIngest.token };
  const ingestKeyIds = { acme: acmeIngest.key.ingestKeyUuid, globex: globexIngest.key.ingestKeyUuid };

  const globalRule = await setPriceRule(db, { operation: "generation", unitPrice: "0.01", validFrom: PAST });
  // Acme's own rule for its safety generation (the same price): the rule its events name, which
  // Globex's callers filter on to find nothing.
  const acmeRule = await setPriceRule(db, {
    organizationUuid: f.acmeId,
    operation: "generation",
    evalType: "safety",
    unitPrice: "0.01",
    validFrom: PAST,
  });
  const priceRules = { global: globalRule.priceRuleUuid, acme: acmeRule.priceRuleUuid };

  const safety = await f.idOf("Safety Research");
  const redTeam = await f.idOf("Red Team");
  const created = await f.call("admin", "POST", "/v1/workspaces/", {
    name: "Old Lab",
    organization_uuid: f.acmeId,
  });
  const oldLab = created.json().workspace_uuid as string;
  await f.call("admin", "DELETE", `/v1/workspaces/${oldLab}`);
  const globexWs = (
    await f.call("other", "POST", "/v1/workspaces/", { name: "Globex Lab", organization_uuid: f.globexId })
  ).json().workspace_uuid as string;

  const recent = new Date(Date.now() - 3600_000).toISOString();
  const events = (prefix: string, workspace: string) =>
    Array.from({ length: 5 }, (_, i) => ({
      event_id: `${prefix}-${i}`,
      occurred_at: recent,
      operation: "generation",
      eval_type: "safety",
      workspace_uuid: workspace,
      // One eval run per organization ("acme-ev-run", "globex-ev-run"), for the eval run routes.
      eval_run_uuid: `${prefix}-run`,
    }));
  for (const [key, evs] of [
    [ingestKeys.acme, events("acme-ev", safety)],
    [ingestKeys.globex, events("globex-ev", globexWs)],
  ] as const) {
    const res = await p.api.app.inject({
      method: "POST",
      url: "/v1/usage/events",
      headers: { "x-api-key": key },
      payload: { events: evs },
    });
    if (res.statusCode !== 200 || res.json().accepted !== 5) throw new Error(`ingest: ${res.body}`);
  }
  // One Acme event no price rule matches: it awaits pricing (the awaiting-pricing routes' data).
  const unpriced = await p.api.app.inject({
    method: "POST",
    url: "/v1/usage/events",
    headers: { "x-api-key": ingestKeys.acme },
    payload: {
      events: [
        { event_id: "acme-ev-unpriced", occurred_at: recent, operation: "acme-op", eval_type: "bleu" },
      ],
    },
  });
  if (unpriced.json().awaiting_pricing !== 1) throw new Error(`ingest: ${unpriced.body}`);
  // Reads create an organization's first billing cycle; make them exist before any comparison.
  const cycles = (await f.call("admin", "GET", "/v1/accounts/organization/billingcycles")).json() as {
    billing_cycle_uuid: string;
  }[];
  await f.call("other", "GET", "/v1/accounts/organization/billingcycles");
  const acmeCycle = cycles[0]?.billing_cycle_uuid ?? "";

  // A budget of each organization (Acme's on Safety Research, its spend at 100%: both alerts open),
  // for the budget routes. Set before the webhook endpoints exist, so no delivery is under way
  // during the cells; its alert emails are sent before the first snapshot.
  const budget = async (who: "admin" | "other", workspaceUuid: string) => {
    const res = await f.call(who, "POST", "/v1/budgets", {
      scope: "workspace",
      workspace_uuid: workspaceUuid,
      amount: "0.05",
      thresholds: [50, 100],
    });
    if (res.statusCode !== 201) throw new Error(`budget: ${res.statusCode} ${res.body}`);
    return res.json().budget_uuid as string;
  };
  const budgets = { acme: await budget("admin", safety), globex: await budget("other", globexWs) };
  await budgetNotifierOf(db)?.settled();

  // A run of Acme's holding a reservation, for the reservation routes (no hard limit: it starts).
  const held = await f.call("admin", "POST", "/v1/eval-runs", {
    workspace_uuid: safety,
    name: "acme-held-run",
    estimate: { cost: "1" },
  });
  if (held.statusCode !== 201) throw new Error(`reserved run: ${held.statusCode} ${held.body}`);
  const reservedRun = held.json().eval_run_uuid as string;
  // A started run of Acme's in Red Team (no member of Acme's in it), for the outcome routes.
  const red = await f.call("admin", "POST", "/v1/eval-runs", {
    workspace_uuid: redTeam,
    name: "acme-red-run",
  });
  if (red.statusCode !== 201) throw new Error(`red team run: ${red.statusCode} ${red.body}`);
  const redTeamRun = red.json().eval_run_uuid as string;

  // A webhook endpoint of each organization (a public address: the product refuses private ones)
  // and one logged delivery of Acme's, for the webhook routes.
  const hook = async (who: "admin" | "other") => {
    const res = await f.call(who, "POST", "/v1/webhook-endpoints", {
      url: `https://93.184.215.14/${who}-hooks`,
      events: ["budget.alert.triggered"],
    });
    if (res.statusCode !== 201) throw new Error(`webhook endpoint: ${res.statusCode} ${res.body}`);
    return res.json().endpoint_uuid as string;
  };
  const acmeHook = await hook("admin");
  const globexHook = await hook("other");
  const acmeDelivery = rowsOf<{ delivery_uuid: string }>(
    await db.execute(sql`insert into webhook_deliveries
      (endpoint_uuid, organization_uuid, event_id, event_type, payload, status, attempts, last_status_code, delivered_at)
      values (${acmeHook}, ${f.acmeId}, gen_random_uuid(), 'budget.alert.triggered', '{"acme":"secret"}', 'succeeded', 1, 200, now())
      returning delivery_uuid`),
  )[0]?.delivery_uuid as string;
  const webhooks = { acme: acmeHook, acmeDelivery, globex: globexHook };

  const invited = await p.identity.app.inject({
    method: "POST",
    url: "/api/fe/v3/invite_user",
    headers: { cookie: cookies.admin, ...csrf },
    payload: { org_id: f.acmeId, email: "invitee@acme.test", role: "Member" },
  });
  if (invited.statusCode !== 200) throw new Error(`invite: ${invited.statusCode} ${invited.body}`);

  const users = await db.execute(
    sql`select id, email from identity."user" where email like '%@acme.test' or email like '%@globex.test'`,
  );
  const ids = Object.fromEntries(rowsOf<{ id: string; email: string }>(users).map((r) => [r.email, r.id]));

  // Tokens that must never be accepted: expired, signed with another key, from another issuer. All
  // carry the Acme administrator's real claims, so accepting one would grant real power.
  const real = f.tokens.get("admin@acme.test") ?? "";
  const claims = JSON.parse(Buffer.from(real.split(".")[1] ?? "", "base64url").toString()) as Record<
    string,
    unknown
  >;
  const realKey = await importPKCS8((await loadSigningKeys(db)).privatePem, "RS256");
  const { generateKeyPair } = await import("jose");
  const { privateKey: strangerKey } = await generateKeyPair("RS256");
  const now = Math.floor(Date.now() / 1000);
  const sign = (key: CryptoKey | Awaited<ReturnType<typeof importPKCS8>>, iss: string, exp: number) =>
    new SignJWT({ ...claims, iss: undefined, exp: undefined, iat: undefined })
      .setProtectedHeader({ alg: "RS256" })
      .setIssuer(iss)
      .setIssuedAt(exp - 3600)
      .setExpirationTime(exp)
      .sign(key);
  const badTokens = {
    expired: await sign(realKey, AUTH, now - 60),
    forged: await sign(strangerKey, AUTH, now + 3600),
    otherIssuer: await sign(realKey, "https://identity.other.example", now + 3600),
  };

  /** Everything of Acme's a call could change, as one comparable string. */
  async function snapshot(): Promise<string> {
    const acme = f.acmeId;
    const q = async (query: ReturnType<typeof sql>) => rowsOf(await db.execute(query));
    return JSON.stringify({
      workspaces: await q(
        sql`select * from workspaces where organization_uuid = ${acme} order by workspace_uuid`,
      ),
      members: await q(sql`select m.* from workspace_members m join workspaces w using (workspace_uuid)
        where w.organization_uuid = ${acme} order by 1, 2`),
      current: await q(sql`select * from current_workspace where organization_uuid = ${acme} order by 1`),
      audit: await q(sql`select * from audit_log where organization_uuid = ${acme} order by id`),
      events: await q(sql`select count(*)::int as n, string_agg(event_id, ',' order by event_id) as ids,
        sum(cost_micros)::text as cost from usage_events where organization_uuid = ${acme}`),
      daily: await q(sql`select count(*)::int as n, sum(cost_micros_sum)::text as cost
        from usage_daily where organization_uuid = ${acme}`),
      awaiting: await q(
        sql`select * from usage_events_awaiting where organization_uuid = ${acme} order by event_id`,
      ),
      cycles: await q(sql`select * from billing_cycles where organization_uuid = ${acme} order by 1`),
      budgets: await q(sql`select * from budgets where organization_uuid = ${acme} order by 1`),
      budgetAlerts: await q(sql`select * from budget_alerts where organization_uuid = ${acme} order by 1`),
      reservations: await q(sql`select eval_run_uuid, reserved_micros::text, finished_at from eval_runs
        where organization_uuid = ${acme} and reserved_micros is not null order by 1`),
      runOutcomes:
        await q(sql`select eval_run_uuid, finished_at, outcomes_passed::text, outcomes_failed::text,
        outcomes_errored::text, outcomes_reported_at from eval_runs
        where organization_uuid = ${acme} and (finished_at is not null or outcomes_reported_at is not null) order by 1`),
      webhookEndpoints: await q(
        sql`select * from webhook_endpoints where organization_uuid = ${acme} order by 1`,
      ),
      webhookDeliveries: await q(
        sql`select * from webhook_deliveries where organization_uuid = ${acme} order by 1`,
      ),
      ingestKeys: await q(sql`select ingest_key_uuid, name, revoked_at from ingest_keys
        where organization_uuid = ${acme} or organization_uuid is null order by 1`),
      // What the operator actions write: Acme's prices (and the global list), payments and
      // groups, the event months, and who is an operator.
      prices: await q(sql`select * from price_rules
        where organization_uuid = ${acme} or organization_uuid is null order by 1`),
      payments: await q(sql`select * from payments where organization_uuid = ${acme} order by 1`),
      groups: await q(sql`select g.*, (select string_agg(m.workspace_uuid::text, ',' order by 1)
        from workspace_group_members m where m.workspace_group_uuid = g.workspace_group_uuid) as members
        from workspace_groups g where g.organization_uuid = ${acme} order by 1`),
      months: await q(sql`select relname from pg_class
        where relname ~ '^usage_events_(archive_)?y[0-9]{4}m[0-9]{2}$' order by 1`),
      operators: await q(sql`select id from identity."user" where role like '%admin%' order by 1`),
      org: await q(sql`select * from identity.organization where id = ${acme}`),
      orgMembers: await q(sql`select * from identity.member where organization_id = ${acme} order by id`),
      invites: await q(sql`select * from identity.invitation where organization_id = ${acme} order by id`),
      users: await q(sql`select id, name, email, email_verified, first_name, last_name, username,
        properties, two_factor_enabled, role, banned from identity."user"
        where email like '%@acme.test' order by id`),
      // last_used_at moves whenever a key is used, which is not a change of the key.
      apiKeys: await q(sql`select id, token_hash, user_id, org_id, expires_at from identity.api_key
        where org_id = ${acme} or user_id in (select id from identity."user" where email like '%@acme.test')
        order by id`),
    });
  }

  /** Strings that must never appear in an answer to an actor of another organization. */
  const acmeSecrets = [
    f.acmeId,
    safety,
    redTeam,
    oldLab,
    acmeCycle,
    "@acme.test",
    "acme-ev-",
    "Acme AI",
    keys.acmeOrg.api_key_id,
    acmeHook,
    acmeDelivery,
    "admin-hooks",
    budgets.acme,
    reservedRun,
    redTeamRun,
  ];

  return {
    ...f,
    cookies,
    csrf,
    keys,
    ingestKeys,
    ingestKeyIds,
    ws: { safety, redTeam, oldLab, globex: globexWs },
    priceRules,
    acmeCycle,
    webhooks,
    budgets,
    reservedRun,
    redTeamRun,
    ids,
    badTokens,
    snapshot,
    acmeSecrets,
  };
}
