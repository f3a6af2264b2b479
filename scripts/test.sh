#!/usr/bin/env bash
# The whole test suite: type check, lint, unit + server tests (Vitest), console build, browser
# tests (Playwright in Debian Chromium). Ends with one line "N passed, N failed", counted from
# the runners' JSON reports; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
rm -rf reports && mkdir -p reports
checks_failed=0

step() { echo; echo "── $1"; }

step "type check"
npx tsc -p tsconfig.json --noEmit || checks_failed=$((checks_failed + 1))

step "lint and format"
npx biome check . || checks_failed=$((checks_failed + 1))

step "unit and server tests (server tests run on PGlite${DATABASE_URL:+ and PostgreSQL})"
npx vitest run --reporter=default --reporter=json --outputFile.json=reports/vitest.json

step "console build"
npx vite build --logLevel warn || checks_failed=$((checks_failed + 1))

step "browser tests"
PLAYWRIGHT_JSON_OUTPUT_NAME=reports/playwright.json npx playwright test --reporter=list,json

node scripts/summarize-reports.mjs "$checks_failed" reports/vitest.json reports/playwright.json | tee reports/summary.txt
grep -q ", 0 failed$" reports/summary.txt
