#!/usr/bin/env bash
# Installs what SwiftBrowse needs and is missing, then builds.
# Usage: scripts/bootstrap.sh [serve|test]
#   serve (default)  Chromium
#   test             Chromium, ChromeDriver, Redis, Java (the Selenium Grid in tests) and
#                    Firefox ESR (the firefox arm)
set -euo pipefail
usage() { sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-serve}" in
  -h | --help) usage; exit 0 ;;
  serve | test) mode=${1:-serve} ;;
  *) echo "Unknown mode \"$1\"." >&2; usage >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

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
