import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredRoutes } from "../../server/platform/http";
import { backends, startProduct, type TestProduct } from "./harness";

// The identity service's JSON calls are Fastify route plugins with zod schemas: its OpenAPI
// document lists every one of them (and no hosted page), and a refused input answers in the
// PropelAuth shape the handlers' own checks used to produce.

type Op = { requestBody?: { content: Record<string, { schema: { properties?: object } }> } };
type Doc = { openapi: string; paths: Record<string, Record<string, Op>> };

const JSON_PREFIXES = ["/api/fe/v3/", "/api/v1/", "/api/backend/"];
const csrf = { "x-csrf-token": "-.-" };

describe.each(backends().slice(0, 1))("identity OpenAPI document on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => {
    await p?.dispose();
  });

  it("lists every JSON route of the identity service, with its schemas, and no hosted page", async () => {
    const res = await p.identity.app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as Doc;
    expect(doc.openapi).toBe("3.1.0");
    const listed = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const routes = registeredRoutes(p.identity.app)
      .filter((r) => JSON_PREFIXES.some((prefix) => r.url.startsWith(prefix)))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, "{$1}")}`)
      .sort();
    expect(routes.length).toBeGreaterThan(35);
    expect(listed).toEqual(routes);
    const login = doc.paths["/api/fe/v3/login"]?.post?.requestBody?.content["application/json"]?.schema;
    expect(Object.keys(login?.properties ?? {})).toEqual(["email", "password"]);
  });

  it("refuses bad input before the handler, in PropelAuth's invalid_request_fields shape", async () => {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/login",
      headers: csrf,
      payload: { email: "not an email", password: "x", surprise: 1 },
    });
    expect(res.statusCode).toBe(400);
    const fields = { email: "Please enter a valid email address.", surprise: "Unknown field." };
    expect(res.json()).toEqual({
      error_code: "invalid_request_fields",
      user_facing_error: "Some fields are not valid.",
      field_errors: fields,
      user_facing_errors: fields,
    });
    // A body that is not an object names the whole body.
    const notObject = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/forgot_password",
      headers: { ...csrf, "content-type": "application/json" },
      payload: "[1]",
    });
    expect(notObject.statusCode).toBe(400);
    expect(Object.keys(notObject.json().field_errors)).toEqual(["body"]);
  });

  it("answers the backend key validation's bad body with the SDKs' field arrays as well", async () => {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/backend/v1/end_user_api_keys/validate",
      headers: { authorization: `Bearer ${p.identity.ctx.backendApiKey}` },
      payload: { api_key_token: "", other: true },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error_code).toBe("invalid_request_fields");
    expect(body.other).toEqual(["Unknown field."]);
    expect(body.api_key_token).toEqual([body.field_errors.api_key_token]);
  });
});
