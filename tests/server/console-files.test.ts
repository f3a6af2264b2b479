import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { precompressDir } from "../../scripts/precompress";
import { registerConsoleFiles } from "../../server/api/console-files";
import { withConsoleConfig } from "../../server/api/console-page";
import { loadConfig } from "../../server/platform/config";
import { createHttpApp } from "../../server/platform/http";
import { consoleCsp } from "../../server/platform/security-headers";

// The built console as a browser gets it: the build's brotli and gzip copies by Accept-Encoding,
// a year of caching for hashed files and revalidation for the rest, the page's security headers,
// and index.html for client-side routes.

const ASSET = "assets/index-Ab12Cd34.js";
const INDEX = `<!doctype html><html><head><link rel="preload" href="/config.json" as="fetch" crossorigin /><script type="module" src="/${ASSET}"></script></head><body>${"<div></div>".repeat(200)}</body></html>`;
const IMMUTABLE = "public, max-age=31536000, immutable";

describe("console files", () => {
  let dir = "";
  let app: FastifyInstance;
  /** index.html as the server sends it: with the configuration written in. */
  let served = "";
  const file = (name: string) => readFileSync(join(dir, name));
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: "GET", url, headers });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "console-files-"));
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), INDEX);
    writeFileSync(
      join(dir, ASSET),
      Array.from({ length: 400 }, (_, i) => `export const value${i} = "${i.toString(36)}";`).join("\n"),
    );
    writeFileSync(join(dir, "favicon.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await precompressDir(dir);
    const config = loadConfig({ DEMO_PASSWORD: "unused-password", CONSOLE_DIR: dir });
    app = createHttpApp(pino({ level: "silent" }), { htmlCsp: consoleCsp([config.apiPublicUrl]) });
    await registerConsoleFiles(app, config);
    await app.ready();
    served = withConsoleConfig(INDEX, {
      apiUrl: config.apiPublicUrl,
      authUrl: config.authPublicUrl,
      productName: "Eval Console",
    });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends the brotli copy to a browser that takes brotli, which decodes to the file", async () => {
    const res = await get(`/${ASSET}`, { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toMatch(/^text\/javascript|^application\/javascript/);
    expect(String(res.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(res.rawPayload.length).toBeLessThan(file(ASSET).length / 2);
    expect(brotliDecompressSync(res.rawPayload).equals(file(ASSET))).toBe(true);
  });

  it("sends the gzip copy to a browser that takes gzip only", async () => {
    const res = await get(`/${ASSET}`, { "accept-encoding": "gzip" });
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(String(res.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(gunzipSync(res.rawPayload).equals(file(ASSET))).toBe(true);
  });

  it("sends the file as it is to a client that takes no compression", async () => {
    for (const headers of [{}, { "accept-encoding": "identity" }] as Record<string, string>[]) {
      const res = await get(`/${ASSET}`, headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-encoding"]).toBeUndefined();
      expect(String(res.headers.vary).toLowerCase()).toContain("accept-encoding");
      expect(res.rawPayload.equals(file(ASSET))).toBe(true);
    }
  });

  it("lets browsers keep hashed files for a year and revalidate the page and unhashed files", async () => {
    for (const encoding of ["br", "gzip", "identity"]) {
      const asset = await get(`/${ASSET}`, { "accept-encoding": encoding });
      expect(asset.headers["cache-control"]).toBe(IMMUTABLE);
      const page = await get("/", { "accept-encoding": encoding });
      expect(page.headers["cache-control"]).toBe("no-cache");
      expect(page.headers.etag).toBeTruthy();
    }
    const icon = await get("/favicon.svg", { "accept-encoding": "br" });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers["cache-control"]).toBe("no-cache");
    expect(icon.headers.etag).toBeTruthy();
  });

  it("answers a revalidation of an unchanged index.html with 304 and no body", async () => {
    for (const url of ["/", "/index.html", "/billing?cycle=2"]) {
      const first = await get(url, { "accept-encoding": "br" });
      expect(first.statusCode).toBe(200);
      expect(first.headers["content-encoding"]).toBe("br");
      expect(brotliDecompressSync(first.rawPayload).toString()).toBe(served);
      const again = await get(url, { "accept-encoding": "br", "if-none-match": String(first.headers.etag) });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
    }
  });

  it("keeps the page's security policy on compressed pages and client-side routes", async () => {
    for (const url of ["/", "/workspaces/123"]) {
      const res = await get(url, { "accept-encoding": "gzip" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(gunzipSync(res.rawPayload).toString()).toBe(served);
      expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("writes the configuration into the page in place of its /config.json preload, under every address", async () => {
    for (const url of ["/", "/index.html", "/organization/workspaces?page=2"]) {
      const res = await get(url, { "accept-encoding": "identity" });
      expect(res.statusCode).toBe(200);
      const html = res.payload;
      expect(html).not.toContain('href="/config.json"');
      const written = /<script type="application\/json" id="console-config">(.*?)<\/script>/.exec(html)?.[1];
      // The same object /config.json answers, so the console reads either alike.
      expect(JSON.parse(written ?? "null")).toEqual((await get("/config.json")).json());
      expect(html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, "")).toBe(
        INDEX.replace(/<link rel="preload"[^>]*>/, ""),
      );
    }
  });

  it("sends a new build's page on the next request, with a new ETag", async () => {
    const before = await get("/", { "accept-encoding": "br" });
    const next = INDEX.replace("</body>", "<p>next build</p></body>");
    writeFileSync(join(dir, "index.html"), next);
    try {
      const after = await get("/", { "accept-encoding": "br", "if-none-match": String(before.headers.etag) });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(brotliDecompressSync(after.rawPayload).toString()).toContain("<p>next build</p>");
    } finally {
      writeFileSync(join(dir, "index.html"), INDEX);
    }
  });

  it("answers a hashed file that does not exist with a 404, not the page", async () => {
    const res = await get("/assets/index-Zz99Yy88.js", { "accept-encoding": "br" });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["cache-control"]).not.toBe(IMMUTABLE);
  });
});
