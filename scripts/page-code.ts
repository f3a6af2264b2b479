// Each route's page code, listed in index.html for the entry to fetch while the shell runs on a
// first visit (src/lib/landing-page-code.ts). A page's files are its chunk and the chunks that chunk
// imports, however deep; the entry's and the shell's files are left out (index.html loads them
// already). The routes and their page modules are src/lib/page-modules.ts.
import { resolve } from "node:path";
import type { Plugin, Rollup } from "vite";
import { scriptSafeJson } from "../contract/script-safe-json";
import { PAGE_CODE_ID } from "../src/lib/landing-page-code";
import { PAGE_MODULES } from "../src/lib/page-modules";

type Chunk = Pick<Rollup.OutputChunk, "fileName" | "imports" | "moduleIds" | "isEntry">;

/** The files (as URLs from the site's root) that the chunk holding `moduleId` needs, itself first,
 * without `loaded` ones; undefined when no chunk holds the module. */
export function pageFiles(
  chunks: Chunk[],
  moduleId: string,
  loaded: ReadonlySet<string>,
): string[] | undefined {
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const page = chunks.find((c) => c.moduleIds.includes(moduleId));
  if (!page) return undefined;
  const files: string[] = [];
  const seen = new Set<string>();
  const visit = (fileName: string) => {
    if (seen.has(fileName) || loaded.has(fileName)) return;
    seen.add(fileName);
    files.push(`/${fileName}`);
    for (const next of byFile.get(fileName)?.imports ?? []) visit(next);
  };
  visit(page.fileName);
  return files;
}

/** Route → files of its page, for every route of `modules` (route → module path from `root`). */
export function pageCode(
  chunks: Chunk[],
  modules: Readonly<Record<string, string>>,
  root: string,
  loaded: ReadonlySet<string>,
): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(modules).map(([route, module]) => {
      const files = pageFiles(chunks, resolve(root, module), loaded);
      // A page module renamed or moved without its line in page-modules.ts.
      if (!files) throw new Error(`no chunk holds ${module}, the page of ${route} (src/lib/page-modules.ts)`);
      return [route, files];
    }),
  );
}

/** The plugin: index.html gets `<script type="application/json" id="page-code">`. `shell`: the
 * shell's module, whose chunk index.html preloads. */
export function listPageCode(root: string, shell: string): Plugin {
  return {
    name: "eval-console:page-code",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, { bundle }) {
        const chunks = Object.values(bundle ?? {}).filter((o): o is Rollup.OutputChunk => o.type === "chunk");
        const loaded = new Set(
          chunks.filter((c) => c.isEntry || c.moduleIds.includes(shell)).map((c) => c.fileName),
        );
        const code = pageCode(chunks, PAGE_MODULES, root, loaded);
        // Inside a script element: no file name can close the element.
        const json = scriptSafeJson(code);
        return [
          {
            tag: "script",
            attrs: { type: "application/json", id: PAGE_CODE_ID },
            children: json,
            injectTo: "head",
          },
        ];
      },
    },
  };
}
