#!/usr/bin/env bash
# Starts the product for the browser tests: the embedded default on a fresh data directory.
# Identity emails go over real SMTP to a local sink on AUTH_PORT+1, which keeps each message as
# a file in $TMPDIR/eval-console-e2e-mail-<console port>/ for the tests to read (as a mailbox).
# Webhooks may reach the tests' receivers on 127.0.0.1 (private URLs allowed) and retry after ~1 s.
# The 4th argument, when given, is the backend API key: tests act as the provider's operator with it
# (ingestion keys, credits).
set -eu
cd "$(dirname "$0")/.."
console_dir="${CONSOLE_DIR:-./dist}"
[ -f "$console_dir/index.html" ] || npx vite build --logLevel warn --outDir "$console_dir"
data="$(mktemp -d)"
mail_dir="${TMPDIR:-/tmp}/eval-console-e2e-mail-$1"
smtp_port=$(($2 + 1))
rm -rf "$mail_dir" && mkdir -p "$mail_dir"
MAIL_DIR="$mail_dir" node scripts/smtp-sink.mjs "$smtp_port" &
smtp=$!
if [ -n "${4:-}" ]; then export BACKEND_API_KEY="$4"; fi
DATABASE_URL="" DATA_DIR="$data" CONSOLE_DIR="$console_dir" PORT="$1" AUTH_PORT="$2" DEMO_PASSWORD="$3" LOG_LEVEL=warn \
  SMTP_URL="smtp://127.0.0.1:$smtp_port" \
  WEBHOOK_ALLOW_PRIVATE_URLS=true WEBHOOK_RETRY_BASE_SECONDS=1 \
  node_modules/.bin/tsx server/main.ts serve &
pid=$!
trap 'kill -TERM $pid $smtp 2>/dev/null; wait $pid; rm -rf "$data"' EXIT TERM INT
wait $pid
