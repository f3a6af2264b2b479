// The demo administrator's credentials for benchmarks that start the product in process: a
// session cookie on the identity service, an access token and a fresh organization API key.
import type { buildProduct } from "../server/app";

type Product = Awaited<ReturnType<typeof buildProduct>>;

export type DemoAdmin = { cookie: string; bearer: string; orgId: string; apiKey: string };

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const set = res.headers["set-cookie"];
  const list = Array.isArray(set) ? set : set ? [String(set)] : [];
  return list.map((c: string) => c.split(";")[0]).join("; ");
}

export async function demoAdmin(product: Product, password: string): Promise<DemoAdmin> {
  const identity = product.identity.app;
  const login = await identity.inject({
    method: "POST",
    url: "/login",
    // As a browser posts the hosted form: from the identity service's own origin.
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: product.identity.ctx.config.authPublicUrl,
    },
    payload: new URLSearchParams({ email: "admin@acme.test", password }).toString(),
  });
  const cookie = cookieOf(login);
  const auth = (
    await identity.inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } })
  ).json();
  const orgId = Object.keys(auth.org_id_to_org_member_info ?? {})[0];
  if (!orgId) throw new Error("the demo administrator has no organization");
  const key = await identity.inject({
    method: "POST",
    url: "/api/fe/v3/api_keys",
    headers: { cookie, "x-csrf-token": "-.-" },
    payload: { org_id: orgId, expiration_option: "OneMonth" },
  });
  if (key.statusCode !== 200) throw new Error(`organization API key: ${key.statusCode} ${key.body}`);
  return { cookie, bearer: auth.access_token as string, orgId, apiKey: key.json().api_key_token as string };
}
