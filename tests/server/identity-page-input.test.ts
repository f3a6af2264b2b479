import type { InjectOptions } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeReturnTarget } from "../../server/identity/return-target";
import { registeredRoutes } from "../../server/platform/http";
import { AUTH, backends, CONSOLE, productPerSuite, signIn } from "./harness";

// The hosted pages' query parameters and form fields are each one string. A parameter given
// twice (which arrives as an array) is refused with 400 invalid_request_fields naming it; a
// return target that is not one we follow leaves the page without it. Never a 5xx, signed in or
// signed out.

/** The identity service's JSON calls and service routes: everything else is a hosted page. */
const NOT_PAGES = ["/api/fe/v3/", "/api/v1/", "/api/backend/", "/api/openapi.json", "/healthz", "/readyz"];

/** Each page's own query parameters besides `rt`. */
const PARAMS: Record<string, string[]> = {
  "/login": ["email"],
  "/login/mfa": ["backup"],
  "/reset_password": ["token"],
  "/confirm_email": ["token"],
  "/magic_link": ["token"],
  "/org": ["id", "q", "page", "done"],
  "/accept_invite": ["id"],
  "/saml": ["id", "done"],
  "/saml/link/confirm": ["token"],
  "/unlock_account": ["token"],
  "/social/error": ["provider", "error"],
  "/api/auth/callback/:provider": ["code", "state", "error"],
};

const concrete = (url: string) => url.replace(":orgId", "no-such-org").replace(":provider", "google");

describe.each(backends())("hosted page input on $name", (backend) => {
  const t = productPerSuite(backend);
  const inject = (opts: InjectOptions) => t.p.identity.app.inject(opts);
  let visitors: { name: string; headers: Record<string, string> }[];
  let pages: string[];
  const one = encodeURIComponent(encodeReturnTarget(`${CONSOLE}/one`));
  const two = encodeURIComponent(encodeReturnTarget(`${CONSOLE}/two`));

  beforeAll(async () => {
    visitors = [
      { name: "signed out", headers: {} },
      { name: "signed in", headers: { cookie: await signIn(t.p, "admin@acme.test") } },
    ];
    pages = registeredRoutes(t.p.identity.app)
      .filter((r) => r.method === "GET" && !NOT_PAGES.some((p) => r.url.startsWith(p)))
      .map((r) => r.url);
  });

  /** A refusal of the repeated parameter, or the page without either return target. */
  function expectRefusedOrIgnored(res: Awaited<ReturnType<typeof inject>>, what: string, param: string) {
    expect(res.statusCode, what).toBeLessThan(500);
    if (res.statusCode === 400 && String(res.headers["content-type"]).includes("json")) {
      expect(res.json().error_code, what).toBe("invalid_request_fields");
      expect(Object.keys(res.json().field_errors ?? {}), what).toContain(param);
      return;
    }
    for (const target of [one, two, `${CONSOLE}/one`, `${CONSOLE}/two`]) {
      expect(res.body, what).not.toContain(target);
      expect(String(res.headers.location ?? ""), what).not.toContain(target);
    }
  }

  it("lists the hosted pages it checks", () => {
    // The sign-in, account, organization, SAML, social and unlock pages are all in the table.
    for (const url of ["/login", "/signup", "/account", "/org", "/saml", "/unlock_account", "/social/error"])
      expect(pages).toContain(url);
  });

  it("refuses a repeated rt on every hosted page, never a 5xx", async () => {
    for (const v of visitors)
      for (const url of pages) {
        const res = await inject({
          method: "GET",
          url: `${concrete(url)}?rt=${one}&rt=${two}`,
          headers: v.headers,
        });
        expectRefusedOrIgnored(res, `${v.name} GET ${url}`, "rt");
      }
  });

  it("answers 400 for a repeated rt on the sign-in and account pages of a signed-in visitor", async () => {
    const [, signedIn] = visitors;
    for (const url of ["/login", "/account", "/signup", "/org", "/create_org", "/forgot_password"]) {
      const res = await inject({
        method: "GET",
        url: `${url}?rt=${one}&rt=${two}`,
        headers: signedIn?.headers,
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().field_errors, url).toHaveProperty("rt");
    }
  });

  it("refuses each page's own parameters repeated, signed in and signed out", async () => {
    for (const v of visitors)
      for (const [url, params] of Object.entries(PARAMS))
        for (const param of params) {
          const res = await inject({
            method: "GET",
            url: `${concrete(url)}?${param}=1&${param}=2`,
            headers: v.headers,
          });
          const what = `${v.name} GET ${url} ${param}`;
          expect(res.statusCode, what).toBe(400);
          expect(Object.keys(res.json().field_errors), what).toContain(param);
        }
  });

  it("refuses a repeated rt on a posted sign-in form before signing in", async () => {
    const res = await inject({
      method: "POST",
      url: `/login?rt=${one}&rt=${two}`,
      headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
      payload: new URLSearchParams({ email: "admin@acme.test", password: "whatever-it-is" }).toString(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("leaves out a return target that is not followed, signed in and signed out", async () => {
    const foreign = encodeURIComponent(encodeReturnTarget("https://evil.example/x"));
    for (const v of visitors)
      for (const rt of [foreign, "%25%25not-base64", "a".repeat(5000)])
        for (const url of ["/login", "/account", "/signup"]) {
          const res = await inject({ method: "GET", url: `${url}?rt=${rt}`, headers: v.headers });
          const what = `${v.name} GET ${url} rt=${rt.slice(0, 20)}`;
          expect(res.statusCode, what).toBeLessThan(500);
          expect(String(res.headers.location ?? ""), what).not.toContain("evil.example");
          expect(res.body, what).not.toContain("evil.example");
        }
  });

  it("takes a hosted page's form in any body type only from the service's own pages", async () => {
    const [, signedIn] = visitors;
    for (const origin of [CONSOLE, "https://evil.example"])
      for (const url of ["/account/profile", "/org/invite", "/create_org", "/logout"]) {
        const res = await inject({
          method: "POST",
          url,
          headers: { ...signedIn?.headers, origin, "content-type": "application/json" },
          payload: { first_name: "Mallory", name: "Mallory Inc", email: "m@evil.example" },
        });
        expect(res.statusCode, `${origin} ${url}`).toBe(403);
      }
    const account = await inject({ method: "GET", url: "/account", headers: signedIn?.headers });
    expect(account.statusCode).toBe(200);
    expect(account.body).not.toContain("Mallory");
  });
});
