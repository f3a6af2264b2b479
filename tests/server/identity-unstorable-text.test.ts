import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startProduct, type TestProduct } from "./harness";
import { setUpTenants, type Tenants } from "./tenants";

// Text PostgreSQL cannot hold (a NUL byte, a lone UTF-16 surrogate) sent to the identity service,
// signed in, in every place a call takes text: the calls the fuzzed suite once saw answer 500 on
// PostgreSQL (the value reached a query), and the hosted pages that look a value up. Each must be
// refused as bad input before any query: 400 with the service's error JSON.

// In a body every kind; in an address only NUL, since a lone surrogate cannot be percent-encoded
// (its UTF-8 form decodes to U+FFFD, which is storable).
const BAD = ["a\u0000b", "\uD800", "x\uDC00y"];
const q = (value: string) => encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, "\u0000"));

type Call = { name: string; request: (bad: string, org: string) => InjectOptions };

const CALLS: Call[] = [
  {
    name: "login/check org_id",
    request: (b) => ({ method: "GET", url: `/api/fe/v3/login/check?org_id=${q(b)}` }),
  },
  {
    name: "login/check domain",
    request: (b) => ({ method: "GET", url: `/api/fe/v3/login/check?domain=${q(b)}` }),
  },
  {
    name: "personal_api_keys api_key_search",
    request: (b) => ({ method: "GET", url: `/api/fe/v3/personal_api_keys?api_key_search=${q(b)}` }),
  },
  {
    name: "create_org name",
    request: (b) => ({ method: "POST", url: "/api/fe/v3/create_org", payload: { name: b } }),
  },
  {
    name: "org_settings org_id",
    request: (b) => ({ method: "GET", url: `/api/fe/v3/org_settings?org_id=${q(b)}` }),
  },
  {
    name: "update_org_metadata org_id",
    request: (b) => ({
      method: "POST",
      url: "/api/fe/v3/update_org_metadata",
      payload: { org_id: b, name: "x" },
    }),
  },
  ...(["members", "pending_invites", "expired_invites"] as const).flatMap((list): Call[] => [
    {
      name: `org_membership ${list} path`,
      request: (b) => ({ method: "GET", url: `/api/fe/v3/org_membership/${q(b)}/${list}` }),
    },
    {
      name: `org_membership ${list} email_search`,
      request: (b, org) => ({
        method: "GET",
        url: `/api/fe/v3/org_membership/${org}/${list}?email_search=${q(b)}`,
      }),
    },
  ]),
  {
    name: "update_metadata first_name",
    request: (b) => ({ method: "POST", url: "/api/fe/v3/update_metadata", payload: { first_name: b } }),
  },
  { name: "hosted /magic_link token", request: (b) => ({ method: "GET", url: `/magic_link?token=${q(b)}` }) },
  { name: "hosted /org id", request: (b) => ({ method: "GET", url: `/org?id=${q(b)}` }) },
  { name: "hosted /saml id", request: (b) => ({ method: "GET", url: `/saml?id=${q(b)}` }) },
];

describe.each(backends())("identity service refuses unstorable text on $name", (backend) => {
  let p: TestProduct;
  let t: Tenants;

  beforeAll(async () => {
    p = await startProduct(backend);
    t = await setUpTenants(p);
  });
  afterAll(async () => {
    await p?.dispose();
  });

  it.each(CALLS)("$name: 400 with the error JSON", async ({ request }) => {
    for (const bad of BAD) {
      const call = request(bad, t.acmeId);
      const res = await p.identity.app.inject({
        ...call,
        headers: { cookie: t.cookies.admin, ...t.csrf, ...(call.headers ?? {}) },
      });
      expect(res.statusCode, `${call.method} ${call.url}: ${res.body.slice(0, 200)}`).toBe(400);
      expect(res.json()).toMatchObject({ error_code: "bad_request", user_facing_error: expect.any(String) });
    }
  });
});
