#!/usr/bin/env bash
# The whole test suite: unit + server tests (Vitest), console build, browser tests (Playwright in
# Debian Chromium), type check and lint. Ends with one line "N passed, N failed", counted from
# the runners' JSON reports; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
rm -rf reports && mkdir -p reports
checks_failed=0

step() { echo; echo "── $1"; }

step "unit and server tests (server tests run on PGlite${DATABASE_URL:+ and PostgreSQL})"
npx vitest run --reporter=default --reporter=json --outputFile.json=reports/vitest.json

# The type check and the lint run beside the console build and the browser tests, which keep about
# one of two cores waiting on the browser and the server (Vitest keeps both busy); their output is
# printed once they end.
npx tsc -p tsconfig.json --noEmit >reports/typecheck.log 2>&1 &
typecheck=$!
npx biome check . >reports/lint.log 2>&1 &
lint=$!

step "console build"
npx vite build --logLevel warn || checks_failed=$((checks_failed + 1))

step "browser tests"
PLAYWRIGHT_JSON_OUTPUT_NAME=reports/playwright.json npx playwright test --reporter=list,json

step "type check"
wait "$typecheck" || checks_failed=$((checks_failed + 1))
cat reports/typecheck.log

step "lint and format"
wait "$lint" || checks_failed=$((checks_failed + 1))
cat reports/lint.log

node scripts/summarize-reports.mjs "$checks_failed" reports/vitest.json reports/playwright.json | tee reports/summary.txt
grep -q ", 0 failed$" reports/summary.txt
