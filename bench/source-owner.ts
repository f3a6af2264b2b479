// Which package, or which folder of the console, a source file of a build's source map belongs
// to. Shared by package-profile.ts (time per package) and chunk-packages.ts (bytes per package).
import { basename } from "node:path";

/** "…/node_modules/@scope/pkg/…" → "@scope/pkg"; "…/src/pages/billing/x.tsx" → "console: pages/billing". */
export function ownerOf(source: string): string {
  const pkg = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1] as string;
  const ours = source.split("/src/")[1];
  return ours ? `console: ${ours.split("/").slice(0, -1).join("/") || ours}` : basename(source);
}
