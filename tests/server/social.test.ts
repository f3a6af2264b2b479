import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { account, user } from "../../server/db/schema";
import { encodeReturnTarget } from "../../server/identity/return-target";
import {
  loadSocialProviders,
  SOCIAL_ENV_VARS,
  SOCIAL_PROVIDERS,
} from "../../server/identity/social/providers";
import { ConfigError, loadConfig } from "../../server/platform/config";
import { AUTH, backends, CONSOLE, cookieHeader, startProduct, type TestProduct } from "./harness";

const GITHUB = { GITHUB_CLIENT_ID: "gh-client-id", GITHUB_CLIENT_SECRET: "gh-client-secret" };
const GOOGLE = { GOOGLE_CLIENT_ID: "google-client-id", GOOGLE_CLIENT_SECRET: "google-client-secret" };

const buttons = (body: string) => [...body.matchAll(/data-provider="([a-z]+)"/g)].map((m) => m[1]);

/** GitHub's token and user endpoints, answered in-process; every other request goes out as usual. */
function fakeGithub(profile: { id: number; login: string; email: string; verified: boolean }) {
  const realFetch = globalThis.fetch;
  const seen: { tokenBody?: string } = {};
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const json = (data: unknown) =>
      new Response(JSON.stringify(data), { headers: { "content-type": "application/json" } });
    if (url.startsWith("https://github.com/login/oauth/access_token")) {
      seen.tokenBody = String(init?.body ?? "");
      return json({ access_token: "gho_fake", token_type: "bearer", scope: "read:user,user:email" });
    }
    if (url === "https://api.github.com/user")
      return json({ id: profile.id, login: profile.login, name: "Octo Cat", email: null, avatar_url: "" });
    if (url === "https://api.github.com/user/emails")
      return json([{ email: profile.email, primary: true, verified: profile.verified }]);
    return realFetch(input, init);
  });
  return { seen, restore: () => spy.mockRestore() };
}

describe.each(backends())("social sign-in on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend, { ...GITHUB, ...GOOGLE });
  });
  afterAll(async () => p?.dispose());
  afterEach(() => vi.restoreAllMocks());

  const inject = (opts: InjectOptions) => p.identity.app.inject(opts);
  const rt = encodeURIComponent(encodeReturnTarget(`${CONSOLE}/evals?x=1`));

  async function startGithub(path = "/github/login") {
    const res = await inject({ method: "GET", url: `${path}?rt=${rt}` });
    expect(res.statusCode).toBe(302);
    const to = new URL(String(res.headers.location));
    return {
      res,
      to,
      state: to.searchParams.get("state") ?? "",
      cookie: cookieHeader(res.headers["set-cookie"]),
    };
  }

  /** A sign-in with GitHub that comes back from a simulated GitHub as octo, with a verified email. */
  async function signInAsOcto() {
    const { state, cookie } = await startGithub();
    const gh = fakeGithub({ id: 4242, login: "octo", email: "octo@social.test", verified: true });
    const res = await inject({
      method: "GET",
      url: `/api/auth/callback/github?code=the-code&state=${state}`,
      headers: { cookie },
    });
    gh.restore();
    return { res, gh, state, cookie };
  }

  it.each(["/github/login", "//github/login"])("%s redirects to GitHub's authorize URL", async (path) => {
    const { res, to, state } = await startGithub(path);
    expect(`${to.origin}${to.pathname}`).toBe("https://github.com/login/oauth/authorize");
    expect(to.searchParams.get("client_id")).toBe("gh-client-id");
    expect(to.searchParams.get("redirect_uri")).toBe(`${AUTH}/api/auth/callback/github`);
    expect(state.length).toBeGreaterThan(16);
    const setCookie = [res.headers["set-cookie"]].flat().join("\n");
    expect(setCookie).toMatch(/eval_console\.state=[^;]+;.*HttpOnly/i);
  });

  it("explains a known provider that is not configured, and 404s an unknown one", async () => {
    for (const [path, label] of [
      ["/slack/login", "Slack"],
      ["//microsoft/login", "Microsoft"],
      ["/xero/login", "Xero"],
    ] as const) {
      const res = await inject({ method: "GET", url: `${path}?rt=${rt}` });
      expect(res.statusCode).toBe(404);
      expect(res.headers["content-type"]).toContain("text/html");
      expect(res.body).toContain(`Sign-in with ${label} is not set up for this installation`);
      expect(res.body).toContain(`href="/login?rt=${rt}"`);
    }
    for (const path of ["/myspace/login", "//constructor/login"]) {
      const unknown = await inject({ method: "GET", url: path });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.body).toContain("There is no such sign-in page.");
    }
  });

  it("lists exactly the configured providers on the login and signup pages", async () => {
    const login = await inject({ method: "GET", url: `/login?rt=${rt}` });
    expect(buttons(login.body)).toEqual(["google", "github"]);
    expect(login.body).toContain("Continue with GitHub");
    expect(login.body).toContain(`href="/github/login?rt=${rt}"`);
    const signup = await inject({ method: "GET", url: "/signup" });
    expect(buttons(signup.body)).toEqual(["google", "github"]);
    // Also when the page is rendered again after a posted form.
    const refused = await inject({
      method: "POST",
      url: "/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
      payload: "email=nobody%40acme.test&password=wrong-password",
    });
    expect(refused.statusCode).toBe(401);
    expect(buttons(refused.body)).toEqual(["google", "github"]);
  });

  it("refuses a callback with a forged or missing state without a session", async () => {
    const { cookie } = await startGithub();
    for (const url of [
      "/api/auth/callback/github?code=abc&state=forged-state",
      "/api/auth/callback/github?code=abc",
    ]) {
      const res = await inject({ method: "GET", url, headers: { cookie } });
      expect(res.statusCode).toBe(302);
      const to = new URL(String(res.headers.location), AUTH);
      expect(to.pathname).toBe("/social/error");
      expect(to.searchParams.get("error")).toMatch(/^state_/);
      expect(String(res.headers["set-cookie"] ?? "")).not.toMatch(/session_token=[^;]/);
      const page = await inject({ method: "GET", url: `${to.pathname}${to.search}` });
      expect(page.statusCode).toBe(400);
      expect(page.body).toContain("has expired or was started in another browser");
    }
  });

  it("refuses a genuine state presented by another browser (no state cookie)", async () => {
    const { state } = await startGithub();
    const res = await inject({ method: "GET", url: `/api/auth/callback/github?code=abc&state=${state}` });
    expect(res.statusCode).toBe(302);
    const to = new URL(String(res.headers.location));
    expect(to.pathname).toBe("/social/error");
    expect(to.searchParams.get("error")).toBe("state_mismatch");
    expect(to.searchParams.get("rt")).toBe(decodeURIComponent(rt));
    expect(String(res.headers["set-cookie"] ?? "")).not.toMatch(/session_token=[^;]/);
  });

  it("answers a callback for a provider that is not configured with a 404 page", async () => {
    const res = await inject({ method: "GET", url: "/api/auth/callback/slack?code=abc&state=x" });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toContain("text/html");
  });

  it("turns a provider's form post into the same callback as a GET", async () => {
    const res = await inject({
      method: "POST",
      url: "/api/auth/callback/github",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://appleid.apple.com" },
      payload: "code=abc&state=some-state",
    });
    expect(res.statusCode).toBe(302);
    const to = new URL(String(res.headers.location));
    expect(to.pathname).toBe("/api/auth/callback/github");
    expect(to.searchParams.get("code")).toBe("abc");
    expect(to.searchParams.get("state")).toBe("some-state");
  });

  it("completes a sign-in against a simulated GitHub: new user, verified email, session", async () => {
    const { res, gh, state, cookie } = await signInAsOcto();
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${CONSOLE}/evals?x=1`);
    expect(new URLSearchParams(gh.seen.tokenBody).get("code")).toBe("the-code");
    const session = cookieHeader(res.headers["set-cookie"]);
    expect(session).toMatch(/eval_console\.session_token=/);

    const [u] = await p.database.db.select().from(user).where(eq(user.email, "octo@social.test"));
    expect(u?.emailVerified).toBe(true);
    const [acc] = await p.database.db
      .select()
      .from(account)
      .where(eq(account.userId, u?.id ?? ""));
    expect(acc?.providerId).toBe("github");
    expect(acc?.accountId).toBe("4242");

    const refreshed = await inject({
      method: "GET",
      url: "/api/v1/refresh_token",
      headers: { cookie: session },
    });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().user.email).toBe("octo@social.test");

    // The state is spent: replaying the same callback signs nobody in.
    const replay = await inject({
      method: "GET",
      url: `/api/auth/callback/github?code=the-code&state=${state}`,
      headers: { cookie },
    });
    expect(new URL(String(replay.headers.location), AUTH).pathname).toBe("/social/error");
  });

  it("asks for the second factor when the signed-in user has one", async () => {
    await p.database.db
      .update(user)
      .set({ twoFactorEnabled: true })
      .where(eq(user.email, "octo@social.test"));
    const { res } = await signInAsOcto();
    expect(res.statusCode).toBe(302);
    expect(String(res.headers.location)).toMatch(/^\/login\/mfa\?rt=/);
    const next = cookieHeader(res.headers["set-cookie"]);
    expect(next).toMatch(/eval_console\.two_factor=[^;]/);
    expect(next).not.toMatch(/session_token=[^;]/);
    const state2 = await inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie: next } });
    expect(state2.statusCode).toBe(401);
  });
});

describe("social sign-in without providers", () => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backends()[0] as typeof backends extends () => (infer B)[] ? B : never);
  });
  afterAll(async () => p?.dispose());

  it("shows no buttons and explains that GitHub is not set up", async () => {
    const login = await p.identity.app.inject({ method: "GET", url: "/login" });
    expect(buttons(login.body)).toEqual([]);
    expect(login.body).not.toContain("Continue with");
    const gh = await p.identity.app.inject({ method: "GET", url: "//github/login" });
    expect(gh.statusCode).toBe(404);
    expect(gh.body).toContain("Sign-in with GitHub is not set up for this installation");
  });
});

describe("social provider configuration", () => {
  it("reads each provider's id and secret, with its extra settings", () => {
    const providers = loadSocialProviders({
      ...GITHUB,
      MICROSOFT_CLIENT_ID: "m",
      MICROSOFT_CLIENT_SECRET: "s",
      MICROSOFT_TENANT_ID: "t1",
    });
    expect(providers).toEqual({
      github: { clientId: "gh-client-id", clientSecret: "gh-client-secret" },
      microsoft: { clientId: "m", clientSecret: "s", tenantId: "t1" },
    });
    // An empty value is unset, as in a copied .env.example.
    expect(loadSocialProviders(loadConfig({ GITHUB_CLIENT_ID: "" }).environment)).toEqual({});
    expect(SOCIAL_PROVIDERS).toHaveLength(12);
  });

  it("documents every variable in .env.example", () => {
    const example = readFileSync(".env.example", "utf8");
    for (const name of SOCIAL_ENV_VARS) expect(example).toMatch(new RegExp(`^${name}=$`, "m"));
  });

  it.each([
    [
      { GITHUB_CLIENT_ID: "x" },
      "GITHUB_CLIENT_ID is set but GITHUB_CLIENT_SECRET is not (GitHub sign-in needs both)",
    ],
    [
      { APPLE_CLIENT_SECRET: "x" },
      "APPLE_CLIENT_SECRET is set but APPLE_CLIENT_ID is not (Apple sign-in needs both)",
    ],
    [
      { MICROSOFT_TENANT_ID: "t" },
      "MICROSOFT_TENANT_ID is set but MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET are not",
    ],
    [
      { SALESFORCE_CLIENT_ID: "a", SALESFORCE_CLIENT_SECRET: "b", SALESFORCE_ENVIRONMENT: "staging" },
      'SALESFORCE_ENVIRONMENT must be production or sandbox (got "staging")',
    ],
  ])("refuses %o with one clear line", (env, message) => {
    let error: unknown;
    try {
      loadSocialProviders(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`Configuration error: ${message}`);
    expect((error as Error).message).not.toContain("\n");
  });
});
