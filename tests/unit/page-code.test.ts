// A first visit's landing page code: which page each route shows (checked against the resources,
// which hold the pages' loaders), the files the build lists for it, and the entry's preload links.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pageCode, pageFiles } from "../../scripts/page-code";
import { PAGE_CODE_ID, preloadLandingPageCode } from "../../src/lib/landing-page-code";
import { PAGE_MODULES, routeOf } from "../../src/lib/page-modules";
import { resources } from "../../src/resources";

const ROOT = resolve(__dirname, "../..");

describe("page modules", () => {
  it("name, for every route a resource declares a page at, the module its loader loads", async () => {
    const declared: [string, string][] = [];
    for (const resource of resources)
      for (const action of ["list", "show", "create", "edit"] as const) {
        const route = resource[action];
        const load = resource.pages?.[action];
        if (typeof route !== "string" || !load) continue;
        const module = PAGE_MODULES[route];
        expect(module, `${route} (${resource.name} ${action}) is in src/lib/page-modules.ts`).toBeDefined();
        const exports: unknown[] = Object.values(await import(resolve(ROOT, module ?? "")));
        expect(exports, `${module} exports the page of ${route}`).toContain(await load());
        declared.push([route, module ?? ""]);
      }
    expect(Object.keys(PAGE_MODULES).sort()).toEqual(declared.map(([route]) => route).sort());
  }, 60_000);

  it("find the route of an address, a :name segment matching any one segment", () => {
    const routes = Object.keys(PAGE_MODULES);
    expect(routeOf("/", routes)).toBe("/");
    expect(routeOf("/users", routes)).toBe("/users");
    expect(routeOf("/users/", routes)).toBe("/users");
    expect(routeOf("/eval-runs/run-1", routes)).toBe("/eval-runs/:id");
    expect(routeOf("/eval-runs", routes)).toBe("/eval-runs");
    expect(routeOf("/organization/webhooks/w-1", routes)).toBe("/organization/webhooks/:id");
    expect(routeOf("/eval-runs/run-1/more", routes)).toBeUndefined();
    expect(routeOf("/nowhere", routes)).toBeUndefined();
    expect(routeOf("", routes)).toBe("/");
  });
});

const chunk = (fileName: string, moduleIds: string[], imports: string[] = [], isEntry = false) => ({
  fileName,
  moduleIds,
  imports,
  isEntry,
});

describe("the build's list", () => {
  // The entry imports a shared chunk; the shell imports it too; the page imports the shell (React,
  // antd), a helper chunk, and through it another.
  const chunks = [
    chunk("assets/index-E.js", ["/app/src/main.tsx"], ["assets/shared-S.js"], true),
    chunk("assets/shared-S.js", ["/app/src/lib/a.ts"]),
    chunk("assets/render-console-R.js", ["/app/src/render-console.tsx"], ["assets/shared-S.js"]),
    chunk(
      "assets/billing-page-B.js",
      ["/app/src/pages/billing/billing-page.tsx", "/app/src/pages/billing/x.tsx"],
      ["assets/render-console-R.js", "assets/helpers-H.js", "assets/shared-S.js"],
    ),
    chunk("assets/helpers-H.js", ["/app/src/lib/h.ts"], ["assets/deep-D.js", "assets/render-console-R.js"]),
    chunk("assets/deep-D.js", ["/app/src/lib/d.ts"], ["assets/helpers-H.js"]),
  ];
  const loaded = new Set(["assets/index-E.js", "assets/render-console-R.js"]);

  it("holds a page's chunk and every chunk it imports, however deep, once, without the entry's and the shell's", () => {
    expect(pageFiles(chunks, "/app/src/pages/billing/billing-page.tsx", loaded)).toEqual([
      "/assets/billing-page-B.js",
      "/assets/helpers-H.js",
      "/assets/deep-D.js",
      "/assets/shared-S.js",
    ]);
    // A page merged into another chunk is found by its module.
    expect(pageFiles(chunks, "/app/src/pages/billing/x.tsx", loaded)?.[0]).toBe("/assets/billing-page-B.js");
  });

  it("fails the build for a page module no chunk holds (moved without its line in page-modules.ts)", () => {
    expect(() => pageCode(chunks, { "/": "src/pages/billing/gone.tsx" }, "/app", loaded)).toThrow(
      "no chunk holds src/pages/billing/gone.tsx, the page of /",
    );
    expect(pageCode(chunks, { "/": "src/pages/billing/billing-page.tsx" }, "/app", loaded)["/"]).toHaveLength(
      4,
    );
  });
});

describe("the entry's preload links", () => {
  const page = (json: string | null) => {
    const doc = document.implementation.createHTMLDocument("console");
    if (json !== null) {
      const script = doc.createElement("script");
      script.type = "application/json";
      script.id = PAGE_CODE_ID;
      script.textContent = json;
      doc.head.append(script);
    }
    return doc;
  };
  const links = (doc: Document) =>
    [...doc.head.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')].map((l) =>
      l.getAttribute("href"),
    );
  const LIST = JSON.stringify({
    "/": ["/assets/a.js", "/assets/b.js"],
    "/eval-runs/:id": ["/assets/run.js"],
  });

  it("fetch the files of the route the visit landed on", () => {
    const home = page(LIST);
    expect(preloadLandingPageCode(home, "/")).toEqual(["/assets/a.js", "/assets/b.js"]);
    expect(links(home)).toEqual(["/assets/a.js", "/assets/b.js"]);
    expect(home.head.querySelector("link")?.crossOrigin).toBe("");
    const run = page(LIST);
    preloadLandingPageCode(run, "/eval-runs/r-9");
    expect(links(run)).toEqual(["/assets/run.js"]);
  });

  it("fetch nothing for an address without a page, a build without the list, or a list it cannot read", () => {
    for (const [json, path] of [
      [LIST, "/nowhere"],
      [null, "/"],
      ["{not json", "/"],
      ['{"/": "/assets/a.js"}', "/"],
      ["null", "/"],
    ] as const) {
      const doc = page(json);
      expect(preloadLandingPageCode(doc, path), `${json} at ${path}`).toEqual([]);
      expect(links(doc)).toEqual([]);
    }
  });
});
