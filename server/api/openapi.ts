import { z } from "zod";
import type { AnyRouteSpec, Router } from "./route";
import { componentSchemas } from "./schemas";

type Json = Record<string, unknown>;
type Components = Record<string, Json>;

// Formats say enough; zod's long regular expressions only clutter the document.
const FORMATS_WITHOUT_PATTERN = new Set(["uuid", "date-time", "email"]);

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "$schema") continue;
    if (k === "pattern" && FORMATS_WITHOUT_PATTERN.has(String((node as Json).format))) continue;
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    out[k] = tidy(v);
  }
  return out;
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema; named parts go to components. */
function toSchema(schema: z.ZodType, io: "input" | "output", components: Components): Json {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
  const json = JSON.parse(
    JSON.stringify(tidy(raw)).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as Json & { $defs?: Components };
  const { $defs, ...rest } = json;
  for (const [id, def] of Object.entries($defs ?? {})) components[id] ??= def;
  return rest;
}

function parameters(schema: z.ZodType | undefined, where: "path" | "query", components: Components) {
  if (!schema) return [];
  const obj = toSchema(schema, "input", components) as { properties?: Components; required?: string[] };
  return Object.entries(obj.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: where,
      required: where === "path" || (obj.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function operation(r: AnyRouteSpec, components: Components): Json {
  const op: Json = {
    operationId: `${r.method.toLowerCase()}${r.path.replace(/[^a-zA-Z0-9]+/g, "_").replace(/_$/, "")}`,
    tags: [r.tag],
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    security:
      r.auth === "none"
        ? []
        : r.auth === "bearer"
          ? [{ bearerAuth: [] }]
          : [{ bearerAuth: [] }, { apiKeyAuth: [] }],
    parameters: [...parameters(r.params, "path", components), ...parameters(r.query, "query", components)],
    responses: Object.fromEntries(
      Object.entries(r.responses).map(([status, res]) => [
        status,
        {
          description: res.description,
          ...(res.schema
            ? { content: { "application/json": { schema: toSchema(res.schema, "output", components) } } }
            : {}),
        },
      ]),
    ),
  };
  if (r.body)
    op.requestBody = {
      required: !r.bodyOptional,
      content: { "application/json": { schema: toSchema(r.body, "input", components) } },
    };
  return op;
}

/** The OpenAPI 3.1 document of every route registered through the router. */
export function buildOpenApi(routes: readonly AnyRouteSpec[], serverUrl: string): Json {
  const components: Components = {};
  for (const s of componentSchemas) toSchema(s, "output", components);
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    (paths[r.path] as Json)[r.method.toLowerCase()] = operation(r, components);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Eval Console product API",
      version: "1",
      description:
        'Errors are JSON {"error": {"code", "message"}}. Workspace calls accept a bearer access token ' +
        "or an x-api-key header; account calls accept a bearer token only. Usage and billing reads are " +
        "for organization administrators. Authenticated calls are rate-limited per credential and per " +
        "organization in one-minute windows (by default 6,000 and 30,000 calls): every counted answer " +
        "carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds), and a call over a " +
        "limit gets 429 rate_limited with Retry-After.",
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        apiKeyAuth: { type: "apiKey", in: "header", name: "x-api-key" },
      },
    },
  };
}

/** GET /v1/openapi.json and a self-contained docs page at GET /v1/docs (no external assets). */
export function registerOpenApi(router: Router, serverUrl: string) {
  let doc: Json | null = null;
  router.route({
    method: "GET",
    path: "/v1/openapi.json",
    tag: "Documentation",
    summary: "This OpenAPI document",
    auth: "none",
    responses: { 200: { description: "OpenAPI 3.1 document" } },
    async handler() {
      doc ??= buildOpenApi(router.routes, serverUrl);
      return doc;
    },
  });
  router.route({
    method: "GET",
    path: "/v1/docs",
    tag: "Documentation",
    summary: "API documentation page",
    auth: "none",
    responses: { 200: { description: "HTML page" } },
    async handler({ reply }) {
      reply.type("text/html; charset=utf-8").header("cache-control", "no-cache");
      return DOCS_PAGE;
    },
  });
}

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Eval Console API</title>
<style>
body{margin:0;font:14px/1.5 system-ui,sans-serif;background:#141414;color:#e6e6e6}
main{max-width:960px;margin:0 auto;padding:24px}h1{font-size:22px}h2{margin-top:32px;border-bottom:1px solid #333}
details{border:1px solid #333;border-radius:6px;margin:8px 0;background:#1d1d1d}
summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:center}
.m{font:600 12px monospace;padding:2px 8px;border-radius:4px;min-width:56px;text-align:center;color:#000}
.GET{background:#61affe}.POST{background:#49cc90}.PUT{background:#fca130}.DELETE{background:#f93e3e}
.p{font-family:monospace}.s{color:#aaa}.body{padding:0 12px 12px}
pre{background:#0d0d0d;padding:8px;border-radius:4px;overflow:auto;font-size:12px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #333;padding:4px 8px;text-align:left;vertical-align:top}
code{font-family:monospace}a{color:#61affe}
</style></head>
<body><main><h1>Eval Console API</h1><p id="intro">Loading <a href="openapi.json">openapi.json</a>…</p><div id="ops"></div></main>
<script>
const el = (tag, props = {}, ...kids) => { const e = document.createElement(tag); Object.assign(e, props);
  for (const k of kids) e.append(k); return e; };
const pretty = (v) => el("pre", { textContent: JSON.stringify(v, null, 2) });
fetch("openapi.json").then((r) => r.json()).then((doc) => {
  const intro = document.getElementById("intro");
  intro.textContent = doc.info.description + " ";
  intro.append(el("a", { href: "openapi.json", textContent: "OpenAPI document" }));
  const ops = document.getElementById("ops");
  const auth = (sec) => !sec.length ? "no authentication" : sec.map((s) => Object.keys(s)[0]).join(" or ");
  for (const tag of doc.tags) {
    ops.append(el("h2", { textContent: tag.name }));
    for (const [path, methods] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(methods)) {
      if (!op.tags.includes(tag.name)) continue;
      const M = method.toUpperCase();
      const body = el("div", { className: "body" });
      if (op.description) body.append(el("p", { textContent: op.description }));
      body.append(el("p", { className: "s", textContent: "Authentication: " + auth(op.security) }));
      if (op.parameters.length) body.append(el("table", {},
        el("tr", {}, el("th", { textContent: "parameter" }), el("th", { textContent: "in" }), el("th", { textContent: "schema" })),
        ...op.parameters.map((p) => el("tr", {}, el("td", {}, el("code", { textContent: p.name + (p.required ? "" : "?") })),
          el("td", { textContent: p.in }), el("td", { textContent: (p.description ? p.description + " " : "") + JSON.stringify(p.schema) })))));
      if (op.requestBody) body.append(el("h4", { textContent: "Request body" }), pretty(op.requestBody.content["application/json"].schema));
      body.append(el("h4", { textContent: "Responses" }));
      for (const [status, res] of Object.entries(op.responses)) {
        body.append(el("div", {}, el("code", { textContent: status + " " }), res.description));
        const schema = res.content && res.content["application/json"].schema;
        if (schema && status < 300) body.append(pretty(schema));
      }
      ops.append(el("details", {}, el("summary", {}, el("span", { className: "m " + M, textContent: M }),
        el("span", { className: "p", textContent: path }), el("span", { className: "s", textContent: op.summary })), body));
    }
  }
  ops.append(el("h2", { textContent: "Schemas" }));
  for (const [name, schema] of Object.entries(doc.components.schemas))
    ops.append(el("details", {}, el("summary", {}, el("code", { textContent: name })), el("div", { className: "body" }, pretty(schema))));
}).catch((err) => { document.getElementById("intro").textContent = "Could not load the API document: " + err; });
</script></body></html>`;
