// Prints "N passed, N failed" from Vitest's and Playwright's JSON reports, after a line counting
// the tests that were skipped (those that need PostgreSQL, without DATABASE_URL), so none is
// skipped in silence; the last line stays the one CI reads. A missing or
// unreadable report counts as one failure (its runner crashed); so does each failed check
// (type check, lint, build) given as the first argument.
import { readFileSync } from "node:fs";

const [checksFailed = "0", ...reports] = process.argv.slice(2);
let passed = 0;
let failed = Number(checksFailed);
let skipped = 0;
for (const file of reports) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    console.error(`missing report: ${file}`);
    failed += 1;
    continue;
  }
  if (typeof report.numPassedTests === "number") {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A file that failed to load has no tests but still failed.
    if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += report.numFailedTestSuites;
  } else if (report.stats) {
    passed += report.stats.expected + report.stats.flaky;
    failed += report.stats.unexpected;
    skipped += report.stats.skipped ?? 0;
    if (report.errors?.length && report.stats.unexpected === 0) failed += report.errors.length;
  } else {
    failed += 1;
  }
}
console.log(
  `${skipped} skipped${skipped && !process.env.DATABASE_URL ? " (tests that need PostgreSQL: set DATABASE_URL)" : ""}`,
);
console.log(`${passed} passed, ${failed} failed`);
