// What the console's code brings along at run time. contract/ is shared with the server, whose
// schemas are zod's; the console takes their types only (`import type`, erased by the build) and
// its run-time values from plain modules beside them (budget-limits, reservation-limits,
// eval-run-paging, usage-query…). A value imported from a schema's module would put zod and every
// schema of that module (and of the modules it imports) into the page's code, evaluated before the
// page's first render: on Billing & Usage and Eval Runs that was 90 kB of script.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "../..");

/** The module specifiers `file` imports at run time: static imports and re-exports with at least
 * one value (a type-only one is erased), side-effect imports, and `import()`. */
function runtimeImports(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const values =
        !clause ||
        (!clause.isTypeOnly &&
          (clause.name !== undefined ||
            (named !== undefined &&
              (ts.isNamespaceImport(named) || named.elements.some((e) => !e.isTypeOnly)))));
      if (values) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const values =
        !node.isTypeOnly &&
        (!clause || !ts.isNamedExports(clause) || clause.elements.some((e) => !e.isTypeOnly));
      if (values) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A relative specifier as the bundler resolves it (TypeScript sources, or a folder's index). */
function resolveLocal(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((c) => /\.tsx?$/.test(c) && existsSync(c)) ?? null;
}

/** Every package the console's code imports at run time from `entry`, with one chain of the
 * console's modules that leads to it. */
function packagesReached(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>([entry]);
  const queue: { file: string; chain: string[] }[] = [{ file: entry, chain: [relative(ROOT, entry)] }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const specifier of runtimeImports(next.file, readFileSync(next.file, "utf8"))) {
      if (specifier.startsWith(".")) {
        const file = resolveLocal(next.file, specifier);
        if (!file || seen.has(file)) continue;
        seen.add(file);
        queue.push({ file, chain: [...next.chain, relative(ROOT, file)] });
      } else {
        const name = specifier.startsWith("@")
          ? specifier.split("/").slice(0, 2).join("/")
          : specifier.split("/")[0]!;
        if (!packages.has(name)) packages.set(name, next.chain);
      }
    }
  }
  return packages;
}

describe("the console's run-time imports", () => {
  it("tells a value import from a type-only one", () => {
    const code = [
      'import type { A } from "./types-only";',
      'import { type B } from "./inline-types-only";',
      'import { type C, d } from "./one-value";',
      'import "./side-effect";',
      'export type { E } from "./re-exported-type";',
      'export { f } from "./re-exported-value";',
      'const page = () => import("./lazy-page");',
    ].join("\n");
    expect(runtimeImports("x.ts", code)).toEqual([
      "./one-value",
      "./side-effect",
      "./re-exported-value",
      "./lazy-page",
    ]);
  });

  it("never brings zod (the contract's schemas) into the console's code, its lazy pages included", () => {
    const reached = packagesReached(join(ROOT, "src/main.tsx"));
    // The walk does reach the pages and their libraries (it would pass vacuously otherwise).
    expect([...reached.keys()]).toEqual(expect.arrayContaining(["react", "antd", "@refinedev/core"]));
    expect(reached.get("zod"), `zod is imported at run time through ${reached.get("zod")?.join(" → ")}`).toBe(
      undefined,
    );
  });
});
