import { sql } from "drizzle-orm";
import fc from "fast-check";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReportGroupBy } from "../../contract/usage-report";
import { filtersOf } from "../../server/api/usage-queries";
import { budgetNotifierOf } from "../../server/metering/budgets/notify";
import { cursorOf } from "../../server/metering/usage/report";
import type { ReportKey } from "../../server/metering/usage/report-sql";
import { registeredRoutes } from "../../server/platform/http";
import { backends, startProduct, type TestProduct } from "./harness";
import { rowsOf, setUpTenants, type Tenants } from "./tenants";

// Schema-driven bad input over every product API route (from its OpenAPI document, which Fastify
// builds from the routes' own zod schemas) and every identity client, session and backend call: wrong types, huge strings,
// unicode, nulls, extra fields, deep JSON, bad UUIDs, negative and huge numbers, malformed JSON,
// wrong content types. Never a 5xx, always the error JSON of the service, and a refused write
// leaves every row count as it was. A fixed seed makes every run the same inputs.

const SEED = 20_260_701;
const PRODUCT_RUNS = 16_000;
const IDENTITY_RUNS = 4_000;
// Thousands of requests per test: far more than the suite's default per-test limit. Alone on a
// 2-core machine the product run takes about 130 s; sharing the cores with the other suites it
// has needed more than 240 s since the budgets, webhook, report and eval-run routes joined it.
const RUN_TIMEOUT = 480_000;

type Input = {
  method: InjectOptions["method"];
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** What kind of bad input this is, for failure messages. */
  kind: string;
};

const HUGE = "x".repeat(20_000);
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

const badUuid = fc.constantFrom(
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "3fa85f64-5717-4562-b3fc-2c963f66afa6 ",
  "3FA85F64-5717-4562-B3FC-2C963F66AFA6",
  "3fa85f64571745622b3fc2c963f66afa6",
  "{3fa85f64-5717-4562-b3fc-2c963f66afa6}",
  "' or 1=1 --",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "",
);

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(HUGE, "\u0000", "\uD800", "😀".repeat(300), "<script>alert(1)</script>", "__proto__"),
  // Text a PostgreSQL text column cannot hold, and dates outside what the date types take.
  fc.constantFrom("a\u0000b", "\uDC00", "x\uD83Dy", "\uDFFF\uD800"),
  fc.constantFrom(
    "0000-01-01",
    "0000-01-01T00:00:00Z",
    "-000001-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "+275760-09-13T00:00:00.000Z",
    "9999-12-31T23:59:60Z",
  ),
  badUuid,
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(-1, 0, -0, 2 ** 31, 2 ** 53 + 1, -(2 ** 53) - 1, 1e308, -1e308, 1.5, Number.MIN_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
);

/** An object over a schema's own fields (some missing, some wrong) plus, sometimes, extra ones. */
function objectOver(
  keys: readonly string[],
  good: Record<string, unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  const own = keys.length
    ? fc.record(
        Object.fromEntries(
          keys.map((k) => [k, good[k] === undefined ? value : fc.oneof(value, fc.constant(good[k]))]),
        ),
        { requiredKeys: [] },
      )
    : fc.constant({});
  const extra = fc.oneof(
    { weight: 3, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), value, { maxKeys: 3 }),
    },
    { weight: 1, arbitrary: fc.constant({ ["__proto__"]: { admin: true } }) },
    { weight: 1, arbitrary: fc.constant({ constructor: { prototype: { admin: true } } }) },
  );
  return fc.tuple(own, extra).map(([a, b]) => ({ ...a, ...b }));
}

/** A body as sent on the wire: JSON of a bad value, malformed JSON, deep JSON, or another type. */
function rawBody(
  object: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<{ kind: string; type: string; body: string }> {
  const json = (kind: string, a: fc.Arbitrary<unknown>) =>
    a.map((v) => ({ kind, type: "application/json", body: JSON.stringify(v) ?? "null" }));
  return fc.oneof(
    { weight: 8, arbitrary: json("body fields", object) },
    { weight: 1, arbitrary: json("body not an object", fc.oneof(scalar, fc.array(value, { maxLength: 3 }))) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "{",
          '{"a":}',
          "{'a': 1}",
          '{"a":1,}',
          "nul",
          "\u0000",
          '{"a":"\\uZZZZ"}',
          "[1,2",
          '{"__proto__":{"x":1}}',
          '{"constructor":{"prototype":{"x":1}}}',
        )
        .map((body) => ({ kind: "malformed JSON", type: "application/json", body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(deepJson(2_000), deepArray(5_000), deepJson(20))
        .map((body) => ({ kind: "deep JSON", type: "application/json", body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            "text/plain",
            "application/xml",
            "multipart/form-data; boundary=x",
            "application/x-www-form-urlencoded",
            "application/octet-stream",
            "application/json; charset=utf-16",
            "image/png",
          ),
          fc.oneof(
            fc.string({ maxLength: 50 }),
            object.map((o) => JSON.stringify(o)),
          ),
        )
        .map(([type, body]) => ({ kind: "wrong content type", type, body })),
    },
  );
}

function queryString(q: Record<string, unknown>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) for (const x of v) s.append(k, String(x));
    else s.append(k, typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
  }
  const text = s.toString();
  return text ? `?${text}` : "";
}

/** One operation of the product API: its path (OpenAPI style) and the fields it takes. */
type Operation = { method: InjectOptions["method"]; path: string; queryKeys: string[]; bodyKeys: string[] };

type JsonSchema = { $ref?: string; anyOf?: JsonSchema[]; properties?: Record<string, unknown> };
type OpenApi = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string }[];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
      }
    >
  >;
  components: { schemas: Record<string, JsonSchema> };
};

/** Every operation of the document, with its query parameters and its JSON body's fields. */
function operationsOf(doc: OpenApi): Operation[] {
  const resolve = (s: JsonSchema | undefined): JsonSchema | undefined =>
    s?.$ref ? doc.components.schemas[s.$ref.replace("#/components/schemas/", "")] : s;
  // An optional body is anyOf [the object, null].
  const objectOf = (s: JsonSchema | undefined) => resolve(s?.anyOf ? s.anyOf.find((x) => x.$ref) : s);
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase() as InjectOptions["method"],
      path,
      queryKeys: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      bodyKeys: Object.keys(objectOf(op.requestBody?.content["application/json"]?.schema)?.properties ?? {}),
    })),
  );
}

/**
 * The organization the operator calls aim at: one of their own, so that a fuzzed call that is
 * valid (a cycle closed, a price set) leaves Acme, which the later properties ingest into, alone.
 */
type FuzzOrg = { id: string; cycle: string };

function productInputs(
  route: Operation,
  t: Tenants,
  headers: Record<string, string>,
  fuzzOrg: FuzzOrg,
): fc.Arbitrary<Input> {
  const operatorCall = route.path.startsWith("/v1/operator/");
  const good: Record<string, string> = {
    workspace_uuid: t.ws.safety,
    user_email: "member@acme.test",
    organization_uuid: t.acmeId,
    billing_cycle_uuid: t.acmeCycle,
    name: "Fuzzed",
    eval_run_uuid: "acme-ev-run",
    price_rule_uuid: t.priceRules.acme,
    endpoint_uuid: t.webhooks.acme,
    delivery_uuid: t.webhooks.acmeDelivery,
    budget_uuid: t.budgets.acme,
    // Explain this charge: a group that exists (the workspaces in no group).
    group: "default",
    // The usage report's required period start, so fuzzed reports get past it.
    starting_at: "2026-01-01",
    // The operator calls': a month that exists, and an email no user has (a fuzzed grant must
    // not make a customer an operator).
    month: new Date().toISOString().slice(0, 7),
    email: "nobody@acme.test",
    ...(operatorCall
      ? { organization: fuzzOrg.id, organization_uuid: fuzzOrg.id, billing_cycle_uuid: fuzzOrg.cycle }
      : {}),
  };
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
  const pathValue = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: badUuid },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constantFrom("x".repeat(5_000), "a/b", "%", "..", "%2e%2e", "@") },
    // Sent as they are: NUL, a lone surrogate's bytes, an overlong NUL, an out-of-range date.
    {
      weight: 1,
      arbitrary: fc.constantFrom("%00", "%00x", "%ED%A0%80", "%C0%80", "0000-01-01", "10000-01-01"),
    },
  );
  const path = fc.tuple(...params.map(() => pathValue)).map((values) =>
    params.reduce((p, name, i) => {
      const v = values[i] as string | undefined;
      const text = v === undefined ? (good[name] ?? "x") : /^%|\/|\.\./.test(v) ? v : encodeURIComponent(v);
      return p.replace(`{${name}}`, text);
    }, route.path),
  );
  // Plus, sometimes, one field sent raw: percent-escapes URLSearchParams would never produce.
  const queryKeys = route.queryKeys;
  const rawQueryValue = fc.constantFrom(
    "%00",
    "a%00b",
    "%ED%A0%80",
    "x%ED%BF%BFy",
    "%C0%80",
    "0000-01-01",
    "10000-01-01T00%3A00%3A00Z",
  );
  const rawQuery = queryKeys.length
    ? fc.option(
        fc.tuple(fc.constantFrom(...queryKeys), rawQueryValue).map(([k, v]) => `${k}=${v}`),
        { freq: 3 },
      )
    : fc.constant(null);
  const query = fc
    .tuple(objectOver(queryKeys, good).map(queryString), rawQuery)
    .map(([q, raw]) => (raw === null ? q : q ? `${q}&${raw}` : `?${raw}`));
  const withBody = route.method !== "GET";
  const body = withBody
    ? fc.option(rawBody(objectOver(route.bodyKeys, good)), { freq: 5 })
    : fc.option(rawBody(objectOver(["q"], {})), { freq: 1 });
  return fc.tuple(path, query, body).map(([p, q, b]) => ({
    method: route.method,
    url: `${p}${q}`,
    headers: b ? { ...headers, "content-type": b.type } : headers,
    ...(b ? { payload: b.body } : {}),
    kind: b ? b.kind : "path and query",
  }));
}

const INGEST_RUNS = 1_200;

/** Amounts and quantities beyond the documented limits, and a few at them. */
const badMoney = fc.constantFrom(
  "9223372036854.775807",
  "-9223372036854.775808",
  "1000000.000001",
  "1000000.01",
  "-1000000.00",
  "1000000",
  "0",
  "-0.0000001",
  "1e6",
  "999999999999999999999999999",
  2 ** 63,
  1e21,
  -1e308,
);
const badQuantity = fc.constantFrom(0, -1, 1_000_000, 1_000_001, 2 ** 31, 2 ** 53 + 1, 1e308, 1.5, "1");
const extremeDate = fc.constantFrom(
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00Z",
  "1999-12-31T23:59:59Z",
  "2000-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "9999-12-31T23:59:59.999+14:00",
  "+275760-09-13T00:00:00.000Z",
  "2026-02-30T00:00:00Z",
);
const badText = fc.constantFrom("a\u0000b", "\u0000", "\uD800", "x\uDC00", "\uDFFF\uD800", "ok\uD83D");

/** One event with some fields wrong: NUL, lone surrogates, extreme dates, money and quantity bounds. */
function badEvent(t: Tenants, recent: string): fc.Arbitrary<Record<string, unknown>> {
  const good: Record<string, unknown> = {
    event_id: "bad-x",
    occurred_at: recent,
    operation: "generation",
    eval_type: "safety",
    workspace_uuid: t.ws.safety,
    quantity: 1,
  };
  const field = (k: string, special: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 2, arbitrary: fc.constant(good[k]) }, special, value);
  return fc.record(
    {
      event_id: field("event_id", fc.oneof(badText, fc.string({ unit: "binary", maxLength: 10 }))),
      occurred_at: field("occurred_at", extremeDate),
      operation: field("operation", badText),
      eval_type: field("eval_type", badText),
      workspace_uuid: field("workspace_uuid", badUuid),
      name: fc.oneof(badText, value),
      modality: fc.oneof(badText, value),
      created_by: fc.oneof(badText, value),
      quantity: field("quantity", badQuantity),
      cost: badMoney,
      notes: fc.oneof(badText, fc.constant("an adjustment")),
    },
    { requiredKeys: [] },
  );
}

const OPERATOR_RUNS = 1_500;

/** Days a billing cycle cannot start or end on: year 0 and 1, impossible dates, out of range. */
const badDay = fc.constantFrom(
  "0001-01-01",
  "0000-01-01",
  "-000001-01-01",
  "1999-12-31",
  "2026-02-30",
  "2026-13-01",
  "2026-1-1",
  "2100-01-02",
  "10000-01-01",
  "2026-01-01T00:00:00Z",
  20260101,
);

/** A valid_from outside what a price may start at, or no date at all. */
const badValidFrom = fc.oneof(
  extremeDate,
  fc.constantFrom("0001-01-01T00:00:00Z", "2100-01-01T00:00:01Z", "2026-01-01", "now", 1e308, -1),
);

/**
 * Bodies for every operator write: each field now good, now one of the values its type cannot
 * take (NUL, lone surrogates, year-1 dates, amounts past the bounds, wrong types).
 */
function operatorInputs(fuzzOrg: FuzzOrg, headers: Record<string, string>): fc.Arbitrary<Input> {
  const org = fc.oneof(
    { weight: 4, arbitrary: fc.constant(fuzzOrg.id) },
    { weight: 1, arbitrary: fc.constantFrom("initech", "Initech", "%00", "%ED%A0%80", "nope") },
  );
  const field = (good: unknown, bad: fc.Arbitrary<unknown>) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(good) },
      { weight: 2, arbitrary: bad },
      { weight: 1, arbitrary: value },
    );
  const text = (good: string) => field(good, badText);
  const body = (fields: Record<string, fc.Arbitrary<unknown>>) => fc.record(fields, { requiredKeys: [] });
  const call = (
    method: InjectOptions["method"],
    path: (o: string) => string,
    payload: fc.Arbitrary<Record<string, unknown>> | null,
  ) =>
    fc.tuple(org, payload ?? fc.constant(null)).map(([o, b]) => ({
      method,
      url: path(o),
      headers: b ? { ...headers, "content-type": "application/json" } : headers,
      ...(b ? { payload: JSON.stringify(b) } : {}),
      kind: `operator ${method} ${path("{organization}")}`,
    }));
  const orgPath = (rest: string) => (o: string) => `/v1/operator/organizations/${o}${rest}`;
  return fc.oneof(
    call(
      "POST",
      () => "/v1/operator/price-rules",
      body({
        organization_uuid: field(fuzzOrg.id, fc.oneof(badUuid, fc.constant(null))),
        operation: text("fuzz-op"),
        eval_type: text("safety"),
        modality: text("text"),
        rule_metric: field("eval", badText),
        unit_price_usd: field("0.0125", badMoney),
        valid_from: field("2026-01-01T00:00:00Z", badValidFrom),
      }),
    ),
    call("POST", orgPath("/billing-cycles"), body({ start_date: field("2099-01-01", badDay) })),
    call(
      "POST",
      orgPath("/billing-cycles/close"),
      body({ end_date: field("2099-01-01", badDay), open_next: field(false, value) }),
    ),
    call(
      "POST",
      orgPath("/payments"),
      body({
        amount_usd: field("1.25", badMoney),
        billing_cycle_uuid: field(fuzzOrg.cycle, badUuid),
        note: text("fuzzed"),
      }),
    ),
    call(
      "PUT",
      orgPath("/workspace-groups"),
      body({
        name: text("Fuzzed group"),
        prepaid_usd: field("10", badMoney),
        workspaces: field(["Safety Research"], fc.array(fc.oneof(badText, value), { maxLength: 3 })),
      }),
    ),
    call("POST", () => "/v1/operator/operators", body({ email: text("nobody@acme.test") })),
    call("GET", (o) => `/v1/operator/organizations/${o}/billing-cycles`, null),
    call("GET", (o) => `/v1/operator/organizations/${o}/awaiting-pricing`, null),
  );
}

/** A stored billing cycle of the organization, for payments to name. */
async function openFuzzCycle(p: TestProduct, organizationUuid: string): Promise<[string]> {
  const res = await p.api.app.inject({
    method: "POST",
    url: `/v1/operator/organizations/${organizationUuid}/billing-cycles`,
    headers: { authorization: `Bearer ${p.identity.ctx.backendApiKey}` },
    payload: { start_date: "2026-01-01" },
  });
  if (res.statusCode !== 201) throw new Error(`cycle: ${res.statusCode} ${res.body}`);
  return [res.json().billing_cycle_uuid as string];
}

const IDENTITY_FIELDS = [
  "email",
  "password",
  "current_password",
  "old_password",
  "new_email",
  "org_id",
  "user_id",
  "name",
  "role",
  "additional_roles",
  "code",
  "remember_device",
  "expiration_option",
  "api_key_token",
  "page_number",
  "page_size",
  "api_key_search",
  "email_search",
  "autojoin_by_domain",
  "restrict_to_domain",
  "require_2fa_by",
  "first_name",
  "last_name",
  "username",
  "properties",
  "create_if_doesnt_exist",
  "domain",
  "active_org_id",
];

function identityInputs(method: string, url: string, headers: Record<string, string>): fc.Arbitrary<Input> {
  const fields = fc.subarray(IDENTITY_FIELDS, { maxLength: 5 });
  const object = fields.chain((keys) => objectOver(keys, {}));
  const segment = fc.oneof(
    badUuid,
    fc.string({ unit: "grapheme", maxLength: 20 }),
    fc.constant("x".repeat(3_000)),
  );
  const path = fc.array(segment, { minLength: 3, maxLength: 3 }).map((values) => {
    let i = 0;
    return url.replace(/:(\w+)/g, () => encodeURIComponent(values[i++] ?? "x") || "x");
  });
  const body = method === "GET" ? fc.constant(null) : fc.option(rawBody(object), { freq: 6 });
  return fc.tuple(path, object.map(queryString), body).map(([p, q, b]) => ({
    method: method as InjectOptions["method"],
    url: `${p}${q}`,
    headers: b ? { ...headers, "content-type": b.type } : headers,
    ...(b ? { payload: b.body } : {}),
    kind: b ? b.kind : "path and query",
  }));
}

const IMPORT_RUNS = 400;
const SEED_RUNS = 150;

/**
 * Usage import bodies as an operator sends them: NDJSON of bad events, broken lines, NUL bytes and
 * over-long lines; CSV with unknown or NUL columns, ragged rows and stray quotes; other types.
 */
function importInputs(t: Tenants, orgId: string, headers: Record<string, string>): fc.Arbitrary<Input> {
  const recent = new Date(Date.now() - 60_000).toISOString();
  const org = fc.oneof(
    { weight: 4, arbitrary: fc.constant(orgId) },
    { weight: 1, arbitrary: fc.constantFrom("nope", "%00", "%ED%A0%80", "x".repeat(300), "a%2Fb") },
  );
  const query = fc.constantFrom(
    "",
    "?backfill=true",
    "?backfill=false",
    "?backfill=yes",
    "?backfill=%00",
    "?backfill=true&backfill=false",
    "?organization_uuid=x",
  );
  const line = fc.oneof(
    { weight: 4, arbitrary: badEvent(t, recent).map((e) => JSON.stringify(e)) },
    {
      weight: 1,
      arbitrary: fc.nat().map((n) =>
        JSON.stringify({
          event_id: `imp-${n}`,
          occurred_at: recent,
          operation: "generation",
          eval_type: "safety",
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "{",
        "null",
        "[]",
        "\u0000",
        '{"event_id":"a\u0000"}',
        "x".repeat(1_100_000),
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  );
  const ndjson = fc
    .tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom("\n", "\r\n"))
    .map(([lines, eol]) => ({ type: "application/x-ndjson", body: lines.join(eol) }));
  const column = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        "event_id",
        "occurred_at",
        "operation",
        "eval_type",
        "quantity",
        "cost",
        "notes",
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom("when", "event\u0000id", "\uD800", "__proto__", "") },
  );
  const cell = fc.oneof(
    scalar.map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""))),
    badText,
    fc.constantFrom('"', '""', '"a,b"', "\n", recent, "generation"),
  );
  const csv = fc
    .tuple(
      fc.array(column, { minLength: 1, maxLength: 6 }),
      fc.array(fc.array(cell, { maxLength: 7 }), { maxLength: 6 }),
    )
    .map(([header, rows]) => ({
      type: "text/csv",
      body: [header, ...rows].map((r) => r.join(",")).join("\r\n"),
    }));
  const other = fc.constantFrom(
    { type: "application/json", body: '{"events":[]}' },
    { type: "text/plain", body: "event_id\nx" },
    { type: "text/csv; charset=latin1", body: "event_id\nx" },
    { type: "multipart/form-data; boundary=x", body: "--x--" },
    { type: "", body: "" },
  );
  const body = fc.oneof(
    { weight: 3, arbitrary: ndjson },
    { weight: 3, arbitrary: csv },
    { weight: 1, arbitrary: other },
  );
  return fc.tuple(org, query, body).map(([o, q, b]) => ({
    method: "POST",
    url: `/v1/operator/organizations/${o}/usage/import${q}`,
    headers: b.type ? { ...headers, "content-type": b.type } : headers,
    payload: b.body,
    kind: `usage import (${b.type || "no type"})`,
  }));
}

/** Demo seed bodies: mostly values the fields cannot take; valid ones ask for a handful of events. */
function seedInputs(headers: Record<string, string>): fc.Arbitrary<Input> {
  const events = fc.oneof(
    fc.constantFrom(-1, 1.5, "10", null, 100_000_001, 2 ** 53, 1e308, "\u0000", [5], { n: 5 }),
    fc.integer({ min: 0, max: 20 }),
  );
  const seed = fc.oneof(
    fc.constantFrom(-1, 2 ** 32, "abc", "1e3", "", " 7", "\u0000", "\uD800", 1.5, null, true),
    fc.integer({ min: 0, max: 3 }),
  );
  const object = fc
    .tuple(fc.record({ events, seed }, { requiredKeys: ["events"] }), objectOver([], {}))
    .map(([fields, extra]) => ({ ...extra, ...fields }));
  // Never a body that leaves events out (a JSON null is no body): that seeds 100,000 events.
  return rawBody(object)
    .filter((b) => !(b.type === "application/json" && b.body.trim() === "null"))
    .map((b) => ({
      method: "POST",
      url: "/v1/operator/demo/seed",
      headers: { ...headers, "content-type": b.type },
      payload: b.body,
      kind: `demo seed: ${b.kind}`,
    }));
}

// Calls left out of the identity runs: they end the very session the runs use.
const IDENTITY_EXCLUDED = new Set(["DELETE /api/fe/v3/delete_me", "POST /api/v1/logout"]);

describe.each(backends())("bad input on $name", (backend) => {
  let p: TestProduct;
  let t: Tenants;
  let fuzzOrg: FuzzOrg;
  let total = 0;

  beforeAll(async () => {
    // Thousands of calls a minute with one token: the /v1 rate limits and the webhook test/retry
    // limit (tested on their own) would answer most of them with 429 before the input is looked at.
    p = await startProduct(backend, {
      API_RATE_LIMIT_PER_CREDENTIAL: "0",
      API_RATE_LIMIT_PER_ORG: "0",
      WEBHOOK_SEND_RATE_LIMIT_PER_ORG: "0",
    });
    t = await setUpTenants(p);
    const initech = await p.identity.admin.createOrganization("Initech", "initech");
    const [cycle] = await openFuzzCycle(p, initech.id);
    fuzzOrg = { id: initech.id, cycle };
    await p.identity.app.ready();
  });
  afterAll(async () => {
    await p?.dispose();
  });

  // The tables each service's calls write, counted in one statement per check.
  const TABLES = {
    api: [
      "workspaces",
      "workspace_members",
      "current_workspace",
      "audit_log",
      "usage_events",
      "usage_events_awaiting",
      "usage_daily",
      "eval_runs",
      "webhook_endpoints",
      "webhook_deliveries",
      "budgets",
      "budget_alerts",
      "price_rules",
      "billing_cycles",
      "payments",
      "workspace_groups",
      "workspace_group_members",
    ],
    identity: [
      'identity."user"',
      "identity.organization",
      "identity.member",
      "identity.invitation",
      "identity.api_key",
    ],
  };

  async function counts(shape: "api" | "identity"): Promise<string> {
    const select = TABLES[shape].map((name) => `(select count(*) from ${name})`).join(" || ',' || ");
    const [row] = rowsOf<{ c: string }>(await p.database.db.execute(sql.raw(`select ${select} as c`)));
    return row?.c ?? "";
  }

  // The requests run() sent, with their answers' status. A route with few possible inputs is fed
  // the same request many times (about 30% of the inputs): one that was refused, or a read, takes
  // the same path again and is counted as run without being sent again; a write that succeeded is
  // sent again (a repeat is its own case).
  const sent = new Map<string, number>();

  async function run(
    app: TestProduct["api"]["app"],
    inputs: fc.Arbitrary<Input>,
    runs: number,
    shape: "api" | "identity",
  ) {
    let known = await counts(shape);
    await fc.assert(
      fc.asyncProperty(inputs, async (input) => {
        const write = input.method !== "GET";
        const key = JSON.stringify([shape, input.method, input.url, input.headers, input.payload ?? null]);
        const earlier = sent.get(key);
        total++;
        if (earlier !== undefined && (earlier >= 400 || !write)) return;
        const res = await app.inject({
          method: input.method,
          url: input.url,
          headers: input.headers,
          ...(input.payload === undefined ? {} : { payload: input.payload }),
        });
        sent.set(key, res.statusCode);
        const where = `${input.kind}: ${input.method} ${input.url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        if (res.statusCode >= 500) throw new Error(`5xx for ${where}`);
        if (res.statusCode >= 400) {
          let body: Record<string, unknown>;
          try {
            body = res.json();
          } catch {
            throw new Error(`not JSON for ${where}`);
          }
          const err = body.error as { code?: unknown; message?: unknown } | undefined;
          const ok =
            shape === "api"
              ? typeof err?.code === "string" && typeof err.message === "string"
              : typeof body.error_code === "string" && typeof body.user_facing_error === "string";
          if (!ok) throw new Error(`not the error JSON for ${where}`);
        }
        // One count per call that could have written: compared with the counts after the last such
        // call, which nothing has changed since (refused reads write nothing).
        if (write || res.statusCode < 400) {
          // A change of billing cycles resolves budget alerts, whose emails and webhook deliveries
          // are written after the answer: counted once they are.
          if (write && res.statusCode < 400) await budgetNotifierOf(p.database.db)?.settled();
          const now = await counts(shape);
          const before = known;
          known = now;
          if (write && res.statusCode >= 400 && now !== before)
            throw new Error(`a refused write changed rows: ${where}`);
        }
      }),
      { seed: SEED, numRuns: runs, endOnFailure: true },
    );
  }

  it(
    "never answers 5xx, always the error JSON, never a partial write: product API",
    async () => {
      const routes = operationsOf((await p.api.app.inject("/v1/openapi.json")).json() as OpenApi);
      // Every route of spec §7 is in the table, hence fed bad input below.
      expect(routes.map((r) => `${r.method} ${r.path}`)).toContain("GET /v1/usage/");
      const headers = { authorization: `Bearer ${t.tokens.get("admin@acme.test")}` };
      const per = Math.ceil(PRODUCT_RUNS / routes.length);
      // Usage is sent with an ingestion key, operator calls with the local operator credential:
      // with a customer's token the input would never be read.
      const ingest = { "x-api-key": t.ingestKeys.acme };
      const operator = { authorization: `Bearer ${p.identity.ctx.backendApiKey}` };
      for (const route of routes) {
        const h =
          route.path === "/v1/usage/events"
            ? ingest
            : // Not the demo seed: a valid call would generate a whole demo's events each time.
              route.path.startsWith("/v1/operator/") && !route.path.startsWith("/v1/operator/demo/")
              ? operator
              : headers;
        await run(p.api.app, productInputs(route, t, h, fuzzOrg), per, "api");
      }
    },
    RUN_TIMEOUT,
  );

  it(
    "never answers 5xx, always the error JSON, never a partial write: operator calls' own fields",
    async () => {
      const operator = { authorization: `Bearer ${p.identity.ctx.backendApiKey}` };
      await run(p.api.app, operatorInputs(fuzzOrg, operator), OPERATOR_RUNS, "api");
    },
    RUN_TIMEOUT,
  );

  it(
    "never answers 5xx, always the error JSON, never a partial write: identity",
    async () => {
      const calls = registeredRoutes(p.identity.app).filter(
        (r) =>
          ["/api/fe/v3/", "/api/v1/", "/api/backend/"].some((prefix) => r.url.startsWith(prefix)) &&
          !IDENTITY_EXCLUDED.has(`${r.method} ${r.url}`),
      );
      const per = Math.ceil(IDENTITY_RUNS / calls.length);
      for (const call of calls) {
        const headers: Record<string, string> =
          call.url.startsWith("/api/backend/") || call.url === "/api/v1/token_verification_metadata"
            ? { authorization: `Bearer ${p.identity.ctx.backendApiKey}` }
            : { cookie: t.cookies.admin, ...t.csrf, "x-forwarded-for": "198.51.100.99" };
        await run(p.identity.app, identityInputs(call.method, call.url, headers), per, "identity");
      }
    },
    RUN_TIMEOUT,
  );

  it(
    "rejects each bad usage event on its own and stores the good one beside it (JSON and NDJSON)",
    async () => {
      const recent = new Date(Date.now() - 60_000).toISOString();
      const senders = {
        key: { "x-api-key": t.ingestKeys.acme },
        operator: { authorization: `Bearer ${p.identity.ctx.backendApiKey}` },
      };
      let n = 0;
      const inputs = fc.record({
        bad: fc.array(badEvent(t, recent), { minLength: 1, maxLength: 5 }),
        at: fc.nat(),
        ndjson: fc.boolean(),
        sender: fc.constantFrom("key", "operator") as fc.Arbitrary<keyof typeof senders>,
      });
      await fc.assert(
        fc.asyncProperty(inputs, async ({ bad, at, ndjson, sender }) => {
          const goodId = `good-${++n}`;
          const events: unknown[] = [...bad];
          const index = at % (events.length + 1);
          events.splice(index, 0, {
            event_id: goodId,
            occurred_at: recent,
            operation: "generation",
            eval_type: "safety",
          });
          const res = await p.api.app.inject({
            method: "POST",
            url: `/v1/usage/events${sender === "operator" ? `?organization_uuid=${t.acmeId}` : ""}`,
            headers: {
              ...senders[sender],
              "content-type": ndjson ? "application/x-ndjson" : "application/json",
            },
            payload: ndjson ? events.map((e) => JSON.stringify(e)).join("\n") : JSON.stringify({ events }),
          });
          total++;
          const where = `${sender} ${ndjson ? "NDJSON" : "JSON"} ${JSON.stringify(events).slice(0, 400)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (res.statusCode !== 200) throw new Error(`not 200: ${where}`);
          const r = res.json() as { accepted: number; duplicates: number; rejected: { index: number }[] };
          if (r.accepted + r.duplicates + r.rejected.length !== events.length)
            throw new Error(`events unaccounted for: ${where}`);
          if (r.rejected.some((x) => x.index === index) || r.accepted < 1)
            throw new Error(`the good event was dropped: ${where}`);
        }),
        { seed: SEED, numRuns: INGEST_RUNS, endOnFailure: true },
      );
      const [stored] = rowsOf<{ n: number }>(
        await p.database.db.execute(
          sql`select count(*)::int as n from usage_events where event_id like 'good-%' and organization_uuid = ${t.acmeId}`,
        ),
      );
      expect(stored?.n).toBe(n);
      // The day's sums still add up: every later event of the day is stored (no overflow).
      const later = await p.api.app.inject({
        method: "POST",
        url: "/v1/usage/events",
        headers: senders.key,
        payload: {
          events: [
            { event_id: "after-fuzz", occurred_at: recent, operation: "generation", eval_type: "safety" },
          ],
        },
      });
      expect(later.json()).toMatchObject({ accepted: 1 });
      const [sums] = rowsOf<{ c: string; q: string }>(
        await p.database.db.execute(
          sql`select sum(cost_micros_sum)::text as c, sum(quantity_sum)::text as q from usage_daily`,
        ),
      );
      expect(BigInt(sums?.c ?? "0") < 10n ** 15n && BigInt(sums?.c ?? "0") > -(10n ** 15n)).toBe(true);
    },
    RUN_TIMEOUT,
  );

  it("says what is wrong with a field of the wrong type, and which field is missing", async () => {
    const call = (payload: unknown) => t.call("admin", "POST", "/v1/workspaces/", payload);
    const wrong = await call({ name: "Lab", organization_uuid: 42 });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.message).toBe("body organization_uuid: organization_uuid must be a string.");
    const missing = await call({ name: "Lab" });
    expect(missing.json().error.message).toBe("body organization_uuid: organization_uuid is required.");
    const nested = await t.call("admin", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: [1] });
    expect(nested.statusCode).toBe(400);
    expect(nested.json().error.message).not.toMatch(/required/);
  });

  it("refuses a bad webhook endpoint in its own words, and stores nothing", async () => {
    const before = await counts("api");
    const create = (payload: unknown) => t.call("admin", "POST", "/v1/webhook-endpoints", payload);
    const cases: [unknown, string][] = [
      [{ events: ["budget.alert.triggered"] }, "body url: url is required."],
      [{ url: 42, events: ["budget.alert.triggered"] }, "body url: url must be a string."],
      [{ url: "javascript:alert(1)", events: ["budget.alert.triggered"] }, "url must use http or https."],
      [
        { url: `https://example.com/${"x".repeat(3000)}`, events: ["budget.alert.triggered"] },
        "body url: url must be at most 2048 characters.",
      ],
      [
        { url: "http://169.254.169.254/latest", events: ["budget.alert.triggered"] },
        "The host 169.254.169.254 resolves to 169.254.169.254, a loopback, private or link-local address, which webhooks may not reach.",
      ],
      [
        { url: "https://93.184.215.14/", events: "budget.alert.triggered" },
        "body events: events must be a list of event types.",
      ],
      [
        { url: "https://93.184.215.14/", events: ["budget.alert.triggered"], enabled: "yes" },
        "body enabled: enabled must be true or false.",
      ],
      [
        { url: "https://93.184.215.14/", events: ["budget.alert.triggered"], description: "a\u0000b" },
        "description",
      ],
    ];
    for (const [payload, message] of cases) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.message).toContain(message);
    }
    const patch = await t.call("admin", "PATCH", `/v1/webhook-endpoints/${t.webhooks.acme}`, {});
    expect(patch.statusCode).toBe(400);
    expect(patch.json().error.message).toContain("Give at least one of url, description, events, enabled.");
    const page = await t.call(
      "admin",
      "GET",
      `/v1/webhook-endpoints/${t.webhooks.acme}/deliveries?page_size=1000`,
    );
    expect(page.json().error.message).toBe("query parameter page_size: page_size must be at most 100.");
    expect(await counts("api")).toBe(before);
  });

  it("refuses a bad budget in its own words, and stores nothing", async () => {
    const before = await counts("api");
    const create = (payload: unknown) => t.call("admin", "POST", "/v1/budgets", payload);
    const ws = t.ws.redTeam;
    const cases: [unknown, string][] = [
      [{ scope: "workspace", workspace_uuid: ws }, "body amount: amount is required."],
      [
        { scope: "workspace", workspace_uuid: ws, amount: "0.00" },
        "body amount: amount must be greater than 0.",
      ],
      [
        { scope: "workspace", workspace_uuid: ws, amount: "1e3" },
        "body amount: amount must be a USD decimal",
      ],
      [
        { scope: "workspace", workspace_uuid: ws, amount: "NaN" },
        "body amount: amount must be a USD decimal",
      ],
      [
        { scope: "workspace", workspace_uuid: ws, amount: "1", thresholds: "50,80" },
        "body thresholds: thresholds must be an array of whole percents.",
      ],
      [
        { scope: "workspace", workspace_uuid: ws, amount: "1", thresholds: [2 ** 31] },
        "body thresholds.0: Each threshold must be between 1 and 1000 (percent).",
      ],
      [
        { scope: "workspace", workspace_uuid: ws, amount: "1", hard_limit: "yes" },
        "body hard_limit: hard_limit must be true or false.",
      ],
      [
        { scope: "workspace", workspace_uuid: "%00", amount: "1" },
        "body workspace_uuid: workspace_uuid must be a workspace uuid.",
      ],
      [{ scope: null, amount: "1" }, 'body scope: scope must be "organization" or "workspace".'],
    ];
    for (const [payload, message] of cases) {
      const res = await create(payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toContain(message);
    }
    const patch = await t.call("admin", "PATCH", `/v1/budgets/${t.budgets.acme}`, { scope: "organization" });
    expect(patch.statusCode).toBe(400);
    expect((await t.call("admin", "GET", "/v1/budgets/%00")).statusCode).toBe(400);
    expect((await t.call("admin", "GET", "/v1/budgets?workspace_uuid=1")).statusCode).toBe(400);
    expect(await counts("api")).toBe(before);
  });

  it("refuses a bad eval run start or lookup in its own words, and starts nothing", async () => {
    const before = await counts("api");
    const start = (payload: unknown) => t.call("admin", "POST", "/v1/eval-runs", payload);
    const cases: [unknown, string][] = [
      [{}, "body workspace_uuid: workspace_uuid is required."],
      [{ workspace_uuid: "' or 1=1 --" }, "body workspace_uuid: workspace_uuid must be a UUID."],
      [
        { workspace_uuid: t.ws.safety, name: "a\u0000b" },
        "body name: text must not contain NUL characters or unpaired UTF-16 surrogates.",
      ],
      [{ workspace_uuid: t.ws.safety, eval_type: ["safety"] }, "body eval_type: eval_type must be a string."],
    ];
    for (const [payload, message] of cases) {
      const res = await start(payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toBe(message);
    }
    // A deleted workspace starts nothing either.
    expect((await start({ workspace_uuid: t.ws.oldLab })).statusCode).toBe(404);
    expect(await counts("api")).toBe(before);
    const list = await t.call("admin", "GET", "/v1/eval-runs?sort=-name&page_size=0");
    expect(list.statusCode).toBe(400);
    expect((await t.call("admin", "GET", "/v1/eval-runs/%00")).statusCode).toBe(400);
  });

  it(
    "never answers 5xx to an estimate of extreme totals, nor to a bad reservation release",
    async () => {
      // Counts and quantities at and past their bounds, whose products pass any fixed-width type.
      const n = fc.oneof(
        fc.constantFrom(
          1,
          1_000_000_000,
          999_999_999,
          1_000_000_001,
          2 ** 31,
          2 ** 53 + 1,
          1e308,
          -1,
          0,
          1.5,
        ),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        value,
      );
      const line = fc.record(
        {
          operation: fc.constantFrom("generation", "scoring", "acme-op"),
          count: n,
          quantity: n,
          eval_type: value,
        },
        { requiredKeys: ["operation", "count"] },
      );
      const estimate = fc.oneof(
        fc.record({ events: fc.array(line, { minLength: 1, maxLength: 60 }) }),
        fc.record({
          cost: fc.oneof(badMoney, fc.constantFrom("1000000000", "1000000000.000001", "0.000000")),
        }),
      );
      const inputs = fc
        .record({
          workspace_uuid: fc.constantFrom(t.ws.safety, t.ws.redTeam),
          eval_type: fc.constantFrom("safety"),
          estimate,
        })
        .map((body) => ({
          method: "POST" as const,
          url: "/v1/eval-runs",
          headers: {
            authorization: `Bearer ${t.tokens.get("admin@acme.test")}`,
            "content-type": "application/json",
          },
          payload: JSON.stringify(body),
          kind: "estimate",
        }));
      await run(p.api.app, inputs, 300, "api");
      // The release of a reservation: a run id the route cannot read, or a body it takes none of.
      const before = await counts("api");
      const release = (id: string, payload?: unknown) =>
        t.call("admin", "POST", `/v1/budgets/reservations/${id}/release`, payload);
      for (const [id, status, message] of [
        ["%00", 400, "must not contain NUL characters"],
        ["%ED%A0%80", 400, "not valid"],
        ["x".repeat(201), 414, "A path parameter is too long."],
        ["acme-ev-run", 404, "Eval run not found."],
      ] as const) {
        const res = await release(id);
        expect(res.statusCode, res.body).toBe(status);
        expect(res.json().error.message).toContain(message);
      }
      const withBody = await release(t.reservedRun, { amount: "1" });
      expect(withBody.statusCode).toBe(400);
      expect(withBody.json().error.message).toBe("This call takes no request body.");
      expect(await counts("api")).toBe(before);
    },
    RUN_TIMEOUT,
  );

  it("refuses a usage report's impossible period, grouping or cursor in words, never 5xx", async () => {
    const cases: [string, RegExp][] = [
      ["starting_at=%00", /ISO 8601/],
      ["starting_at=0000-01-01T00:00:00Z", /ISO 8601|between/],
      ["starting_at=10000-01-01T00%3A00%3A00Z", /ISO 8601/],
      ["starting_at=2026-01-01T25:00:00Z", /ISO 8601/],
      ["starting_at=2026-01-01T00:00:00%2B99:00", /ISO 8601/],
      ["starting_at=1999-12-31T23:59:59Z", /between/],
      ["starting_at=2026-01-01&ending_at=2100-01-01T00:00:01Z", /between/],
      ["starting_at=2026-03-01&ending_at=2026-02-01", /ending_at must be after starting_at/],
      ["starting_at=2024-01-01&ending_at=2026-01-01&bucket_width=1h", /buckets of 1h/],
      ["starting_at=2000-01-01&ending_at=2100-01-01&bucket_width=1d", /buckets of 1d/],
      ["starting_at=2026-01-01&group_by=api_key,api_keys", /group_by must be a list/],
      ["starting_at=2026-01-01&group_by=__proto__", /group_by must be a list/],
      ["starting_at=2026-01-01&page=%ED%A0%80", /cursor/],
      [`starting_at=2026-01-01&page=${"A".repeat(300)}`, /cursor/],
      ["starting_at=2026-01-01&page=eyJvIjotMSwiZiI6IngifQ", /cursor/],
      ["starting_at=2026-01-01&page_size=1e9", /page_size/],
      ["starting_at=2026-01-01&format=xml", /format must be json or csv/],
      ["starting_at=2026-01-01&price_rule_uuid=not-a-uuid", /price_rule_uuid must be a UUID/],
      ["starting_at=2026-01-01&price_rule_uuid=%00", /price_rule_uuid must be a UUID/],
      ["starting_at=2026-01-01&price_rule_uuid='%20or%201=1%20--", /price_rule_uuid must be a UUID/],
    ];
    // Cursors of this very report (its fingerprint) whose row key no row could have: refused in
    // words before any value reaches the database (a bad uuid or date there would be a 5xx).
    const period = "starting_at=2026-01-01&ending_at=2026-02-01";
    const forged = (groupBy: ReportGroupBy[], key: unknown) =>
      cursorOf(
        {
          organizationUuid: t.acmeId,
          start: new Date("2026-01-01T00:00:00Z"),
          end: new Date("2026-02-01T00:00:00Z"),
          width: "1d",
          groupBy,
          filters: filtersOf({ workspace_uuid: [], eval_type: [], operation: [], modality: [] }),
          matches: null,
        },
        key as ReportKey,
      );
    for (const [groupBy, key] of [
      [["workspace"], ["2026-01-05T00:00:00Z", "not-a-uuid"]],
      [["workspace"], ["2026-02-30T00:00:00Z", null]],
      [["workspace"], ["2026-01-05", null]],
      [["workspace"], ["2026-01-05T00:00:00Z"]],
      [["workspace"], ["2026-01-05T00:00:00Z", 7]],
      [["eval_type"], ["2026-01-05T00:00:00Z", "safety\u0000"]],
      [["eval_type"], ["2026-01-05T00:00:00Z", "x".repeat(2_000)]],
      [[], { o: 3 }],
    ] as [ReportGroupBy[], unknown][])
      cases.push([`${period}&group_by=${groupBy.join(",")}&page=${forged(groupBy, key)}`, /cursor/]);
    // …while a well-formed key of the report is a page.
    const fine = forged(["workspace"], ["2026-01-05T00:00:00Z", null]);
    const token = t.tokens.get("admin@acme.test");
    const page = await p.api.app.inject({
      method: "GET",
      url: `/v1/usage/report?${period}&group_by=workspace&page=${fine}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(page.statusCode, page.body).toBe(200);
    for (const [query, message] of cases) {
      for (const accept of ["application/json", "text/csv"]) {
        const res = await p.api.app.inject({
          method: "GET",
          url: `/v1/usage/report?${query}`,
          headers: { authorization: `Bearer ${token}`, accept },
        });
        total++;
        expect(res.statusCode, `${query} (${accept}): ${res.body}`).toBe(400);
        expect(res.json().error, query).toMatchObject({ code: "invalid_request", message });
      }
    }
  });

  it(
    "usage import and demo seed: never 5xx, always the error JSON, counts that add up, no write when refused",
    async () => {
      const operator = { authorization: `Bearer ${p.identity.ctx.backendApiKey}` };
      // An organization of its own: what the import stores leaves Acme's usage alone.
      const umbrella = await p.identity.admin.createOrganization("Umbrella", "umbrella");
      let known = await counts("api");
      await fc.assert(
        fc.asyncProperty(importInputs(t, umbrella.id, operator), async (input) => {
          const res = await p.api.app.inject({
            method: input.method,
            url: input.url,
            headers: input.headers,
            payload: input.payload ?? "",
          });
          total++;
          const where = `${input.kind}: ${input.url.slice(0, 120)} ${(input.payload ?? "").slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (res.statusCode >= 500) throw new Error(`5xx for ${where}`);
          const now = await counts("api");
          const before = known;
          known = now;
          if (res.statusCode >= 400) {
            const err = (res.json() as { error?: { code?: unknown; message?: unknown } }).error;
            if (typeof err?.code !== "string" || typeof err.message !== "string")
              throw new Error(`not the error JSON for ${where}`);
            if (now !== before) throw new Error(`a refused import changed rows: ${where}`);
            return;
          }
          const r = res.json() as {
            events: number;
            accepted: number;
            duplicates: number;
            rejected: number;
            rejections: unknown[];
          };
          if (r.accepted + r.duplicates + r.rejected !== r.events)
            throw new Error(`counts do not add up: ${where}`);
          if (r.rejections.length > Math.min(r.rejected, 100)) throw new Error(`rejections listed: ${where}`);
        }),
        { seed: SEED, numRuns: IMPORT_RUNS, endOnFailure: true },
      );
      // Valid seeds ask for a handful of events: the demo exists, so only its usage grows.
      await run(p.api.app, seedInputs(operator), SEED_RUNS, "api");
    },
    RUN_TIMEOUT,
  );

  it("ran at least 21,000 inputs, at least 14,000 of them distinct requests", () => {
    expect(total).toBeGreaterThanOrEqual(21_000);
    expect(sent.size).toBeGreaterThanOrEqual(14_000);
  });
});
