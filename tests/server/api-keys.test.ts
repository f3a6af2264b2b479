import { createFrontendApisClient } from "@propelauth/frontend-apis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { apiKey } from "../../server/db/schema";
import { AUTH, backends, PASSWORD, startProduct, type TestProduct } from "./harness";

const DAY = 86_400;
const DAYS = { TwoWeeks: 14, OneMonth: 30, ThreeMonths: 90, SixMonths: 180, OneYear: 365 } as const;

/** A browser-like cookie jar: keeps Set-Cookie values and sends them back, over real HTTP. */
function cookieJar() {
  const jar = new Map<string, string>();
  return {
    header: () => [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
    take(res: Response) {
      for (const c of res.headers.getSetCookie()) {
        const [pair = ""] = c.split(";");
        const i = pair.indexOf("=");
        const value = pair.slice(i + 1);
        if (value === "" || /max-age=0/i.test(c)) jar.delete(pair.slice(0, i));
        else jar.set(pair.slice(0, i), value);
      }
    },
  };
}

describe.each(backends())(
  "identity client API keys (unmodified @propelauth/frontend-apis) on $name",
  (backend) => {
    let p: TestProduct;
    let base: string;
    let orgId: string;
    const realFetch = globalThis.fetch;
    const jars = new Map<string, ReturnType<typeof cookieJar>>();
    let current: ReturnType<typeof cookieJar> | null = null;

    beforeAll(async () => {
      p = await startProduct(backend);
      base = await p.identity.app.listen({ port: 0, host: "127.0.0.1" });
      // The client calls the global fetch with credentials: "include"; Node has no cookie store,
      // so this stand-in plays the browser's part for whichever user is acting.
      vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        if (current) headers.set("cookie", current.header());
        const res = await realFetch(url, { ...init, headers, redirect: "manual" });
        current?.take(res);
        return res;
      });
      for (const email of ["admin@acme.test", "member@acme.test", "newcomer@acme.test"]) {
        const jar = cookieJar();
        current = jar;
        const res = await fetch(`${base}/login`, {
          method: "POST",
          // The hosted form, posted from its own page as a browser does.
          headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
          body: new URLSearchParams({ email, password: PASSWORD }).toString(),
        });
        expect(res.status).toBe(303);
        jars.set(email, jar);
      }
      current = jars.get("admin@acme.test")!;
      orgId = Object.keys(
        (await (await fetch(`${base}/api/v1/refresh_token`)).json()).org_id_to_org_member_info,
      )[0]!;
    });
    afterAll(async () => {
      vi.unstubAllGlobals();
      await p?.dispose();
    });

    const as = (email: string) => {
      current = jars.get(email)!;
      return createFrontendApisClient({ authUrl: base, baseApiUrl: base });
    };
    // Results of the client, read directly rather than through its visitors.
    type Result<T, E> = { ok: true; data: T } | { ok: false; error: E };
    const data = <T, E>(r: Result<T, E>): T => {
      if (!r.ok) throw new Error(`expected success, got ${JSON.stringify(r.error)}`);
      return r.data;
    };
    const error = <T, E>(r: Result<T, E>): E => {
      if (r.ok) throw new Error("expected an error, got success");
      return r.error;
    };
    const countKeys = async () => (await p.database.db.select({ id: apiKey.id }).from(apiKey)).length;

    it("creates a personal key with OneYear by default and shows the token once", async () => {
      const client = as("admin@acme.test");
      const created = await client.createPersonalApiKey(undefined as never);
      expect(created.ok).toBe(true);
      const { api_key_id, api_key_token } = data(created);
      expect(api_key_id).toMatch(/^[0-9a-f]{32}$/);
      expect(api_key_token).toMatch(/^eck_[A-Za-z0-9_-]{43}$/);
      const list = await client.fetchPersonalApiKeys({});
      const key = data(list).api_keys.find((k) => k.api_key_id === api_key_id)!;
      expect(key.expires_at_seconds! - key.created_at).toBeGreaterThanOrEqual(365 * DAY - 2);
      expect(key.expires_at_seconds! - key.created_at).toBeLessThanOrEqual(365 * DAY + 2);
      expect(JSON.stringify(data(list))).not.toContain(api_key_token);
    });

    it("gives each expiration option its lifetime and refuses others as invalidExpirationOption", async () => {
      const client = as("admin@acme.test");
      for (const [option, days] of Object.entries(DAYS)) {
        const made = data(await client.createPersonalApiKey(option as keyof typeof DAYS));
        const list = await client.fetchPersonalApiKeys({ api_key_search: made.api_key_id });
        const [key] = data(list).api_keys;
        expect(Math.abs(key!.expires_at_seconds! - key!.created_at - days * DAY), option).toBeLessThanOrEqual(
          2,
        );
      }
      const before = await countKeys();
      for (const option of ["Never", "Forever", 7]) {
        const res = await client.createPersonalApiKey(option as never);
        expect(res.ok).toBe(false);
        const seen = await res.handle({
          success: () => "success",
          invalidExpirationOption: () => "invalidExpirationOption",
          unexpectedOrUnhandled: () => "unexpected",
        } as never);
        expect(seen).toBe("invalidExpirationOption");
      }
      expect(await countKeys()).toBe(before);
    });

    it("lists newest first, pages with has_more_results, and searches by key id", async () => {
      const client = as("member@acme.test");
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push(data(await client.createPersonalApiKey("OneMonth")).api_key_id);
      const page0 = data(await client.fetchPersonalApiKeys({ page_size: 5 }));
      expect(page0).toMatchObject({
        total_api_keys: 12,
        current_page: 0,
        page_size: 5,
        has_more_results: true,
      });
      const page2 = data(await client.fetchPersonalApiKeys({ page_number: 2, page_size: 5 }));
      expect(page2).toMatchObject({ current_page: 2, has_more_results: false });
      expect(page2.api_keys).toHaveLength(2);
      const defaults = data(await client.fetchPersonalApiKeys({}));
      expect(defaults.page_size).toBe(10);
      expect(defaults.has_more_results).toBe(true);
      const created = defaults.api_keys.map((k) => k.created_at);
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      const all = [
        ...page0.api_keys,
        ...data(await client.fetchPersonalApiKeys({ page_number: 1, page_size: 5 })).api_keys,
        ...page2.api_keys,
      ];
      expect(new Set(all.map((k) => k.api_key_id))).toEqual(new Set(ids));
      const target = ids[7]!;
      const found = data(await client.fetchPersonalApiKeys({ api_key_search: target.slice(4, 14) }));
      expect(found.api_keys.map((k) => k.api_key_id)).toContain(target);
      expect(
        data(await client.fetchPersonalApiKeys({ api_key_search: target.toUpperCase() })).total_api_keys,
      ).toBe(1);
      expect(data(await client.fetchPersonalApiKeys({ api_key_search: "zzz-none" })).total_api_keys).toBe(0);
      // Other users' keys never show up.
      expect(data(await as("newcomer@acme.test").fetchPersonalApiKeys({})).total_api_keys).toBe(0);
    });

    it("deletes one's own key and refuses someone else's, deleting nothing", async () => {
      const mine = data(await as("newcomer@acme.test").createPersonalApiKey("TwoWeeks"));
      const theirs = data(await as("member@acme.test").createPersonalApiKey("TwoWeeks"));
      const refused = await as("newcomer@acme.test").deleteApiKey(theirs.api_key_id);
      expect(refused.ok).toBe(false);
      expect(error(refused)).toMatchObject({ error_code: "not_found" });
      const gone = await as("newcomer@acme.test").deleteApiKey("not-a-key-id");
      expect(error(gone)).toMatchObject({ error_code: "not_found" });
      expect(
        data(await as("member@acme.test").fetchPersonalApiKeys({ api_key_search: theirs.api_key_id }))
          .total_api_keys,
      ).toBe(1);
      expect((await as("newcomer@acme.test").deleteApiKey(mine.api_key_id)).ok).toBe(true);
      expect(data(await as("newcomer@acme.test").fetchPersonalApiKeys({})).total_api_keys).toBe(0);
      expect(error(await as("newcomer@acme.test").deleteApiKey(mine.api_key_id))).toMatchObject({
        error_code: "not_found",
      });
    });

    it("lets only members with can_manage_api_keys create, list and delete org keys", async () => {
      const admin = as("admin@acme.test");
      const orgKey = data(await admin.createOrgApiKey(orgId, "ThreeMonths"));
      expect(orgKey.api_key_id).toMatch(/^[0-9a-f]{32}$/);
      const listed = data(await admin.fetchOrgApiKeys({ org_id: orgId }));
      expect(listed.api_keys.map((k) => k.api_key_id)).toEqual([orgKey.api_key_id]);
      expect(
        data(await admin.fetchPersonalApiKeys({ api_key_search: orgKey.api_key_id })).total_api_keys,
      ).toBe(0);

      const before = await countKeys();
      const memberClient = as("member@acme.test");
      const create = await memberClient.createOrgApiKey(orgId, "OneYear");
      expect(error(create)).toMatchObject({ error_code: "action_forbidden" });
      expect(error(await memberClient.fetchOrgApiKeys({ org_id: orgId }))).toMatchObject({
        error_code: "action_forbidden",
      });
      expect(error(await memberClient.deleteApiKey(orgKey.api_key_id))).toMatchObject({
        error_code: "action_forbidden",
      });
      expect(error(await memberClient.createOrgApiKey("some-other-org", "OneYear"))).toMatchObject({
        error_code: "action_forbidden",
      });
      expect(error(await as("admin@acme.test").fetchOrgApiKeys({ org_id: "some-other-org" }))).toMatchObject({
        error_code: "org_not_found",
      });
      expect(await countKeys()).toBe(before);
      expect((await as("admin@acme.test").deleteApiKey(orgKey.api_key_id)).ok).toBe(true);
    });

    it("answers bad requests with 4xx identity errors, never 500, and writes nothing", async () => {
      const before = await countKeys();
      const cookie = jars.get("admin@acme.test")!.header();
      const call = (path: string, init: RequestInit & { csrf?: boolean } = {}) =>
        realFetch(`${base}/api/fe/v3${path}`, {
          method: "POST",
          ...init,
          headers: {
            cookie,
            "content-type": "application/json",
            ...(init.csrf === false ? {} : { "x-csrf-token": "-.-" }),
          },
        });
      const cases: [string, RequestInit & { csrf?: boolean }, number, string][] = [
        ["/api_keys", { body: "{}", csrf: false }, 403, "action_forbidden"],
        [
          "/api_keys",
          { body: JSON.stringify({ expiration_option: "OneYear", extra: 1 }) },
          400,
          "invalid_request_fields",
        ],
        [
          "/api_keys",
          { body: JSON.stringify({ expiration_option: "OneYear", display_name: "x" }) },
          400,
          "invalid_request_fields",
        ],
        [
          "/api_keys",
          { body: JSON.stringify({ org_id: 5, expiration_option: "OneYear" }) },
          400,
          "invalid_request_fields",
        ],
        ["/api_keys", { body: JSON.stringify({ org_id: "o".repeat(1000) }) }, 400, "invalid_request_fields"],
        ["/api_keys", { body: JSON.stringify(["OneYear"]) }, 400, "invalid_request_fields"],
        ["/api_keys", { body: JSON.stringify("OneYear") }, 400, "invalid_request_fields"],
        ["/api_keys", { body: "{nope" }, 400, "bad_request"],
        [
          "/api_keys",
          { body: JSON.stringify({ expiration_option: "x".repeat(2_000_000) }) },
          413,
          "bad_request",
        ],
        ["/personal_api_keys?page_size=abc", { method: "GET" }, 400, "invalid_request_fields"],
        ["/personal_api_keys?page_size=1000", { method: "GET" }, 400, "invalid_request_fields"],
        ["/personal_api_keys?page_number=-1", { method: "GET" }, 400, "invalid_request_fields"],
        [
          `/personal_api_keys?api_key_search=${"a".repeat(200)}`,
          { method: "GET" },
          400,
          "invalid_request_fields",
        ],
        ["/personal_api_keys?surprise=1", { method: "GET" }, 400, "invalid_request_fields"],
        ["/org_api_keys", { method: "GET" }, 400, "invalid_request_fields"],
      ];
      for (const [path, init, status, code] of cases) {
        const res = await call(path, init);
        expect(res.status, `${path} ${String(init.body).slice(0, 60)}`).toBe(status);
        expect((await res.json()).error_code).toBe(code);
      }
      const anonymous = await realFetch(`${base}/api/fe/v3/personal_api_keys`, {
        headers: { "x-csrf-token": "-.-" },
      });
      expect(anonymous.status).toBe(401);
      expect(await countKeys()).toBe(before);
      // Only a SHA-256 of each token is stored.
      for (const row of await p.database.db.select({ h: apiKey.tokenHash }).from(apiKey))
        expect(row.h).toMatch(/^[0-9a-f]{64}$/);
    });
  },
);
