// Writes src/lib/antd/dark-map-token.json: antd's dark algorithm applied to antd's default seed, the
// console's one theme (components/theme-shell.tsx). The console reads it instead of running the
// algorithm in the browser; tests/unit/dark-algorithm.test.tsx fails when an antd upgrade changes the
// answer, and this script writes the new one.
//
// Usage: npx tsx scripts/write-dark-map-token.ts
import { writeFileSync } from "node:fs";
import { theme } from "antd";

const file = new URL("../src/lib/antd/dark-map-token.json", import.meta.url);
writeFileSync(file, `${JSON.stringify(theme.darkAlgorithm(theme.defaultSeed), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
