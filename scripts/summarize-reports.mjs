// Prints "N passed, N failed" from Vitest's and Playwright's JSON reports. A missing or
// unreadable report counts as one failure (its runner crashed); so does each failed check
// (type check, lint, build) given as the first argument.
import { readFileSync } from "node:fs";

const [checksFailed = "0", ...reports] = process.argv.slice(2);
let passed = 0;
let failed = Number(checksFailed);
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
    // A file that failed to load has no tests but still failed.
    if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += report.numFailedTestSuites;
  } else if (report.stats) {
    passed += report.stats.expected + report.stats.flaky;
    failed += report.stats.unexpected;
    if (report.errors?.length && report.stats.unexpected === 0) failed += report.errors.length;
  } else {
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
