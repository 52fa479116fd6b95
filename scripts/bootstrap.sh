#!/usr/bin/env bash
# Installs what SwiftBrowse needs and is missing, then builds.
#   bootstrap.sh serve  — Chromium
#   bootstrap.sh test   — Chromium, ChromeDriver, Redis, Java (the Selenium Grid in tests) and
#                         Firefox ESR (the firefox arm)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-serve}

need=()
if [ -z "${BROWSER_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then need+=(chromium); fi
if [ "$mode" = test ]; then
  command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
  command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
  [ -n "${FIREFOX_PATH:-}" ] || command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || need+=(firefox-esr)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${need[*]}…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "Missing: ${need[*]}. Install them (Debian: sudo apt-get install -y ${need[*]}) and run again." >&2
    exit 1
  fi
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node scripts/build.mjs
