#!/usr/bin/env bash
# Debian packages the tests need: chromium (Playwright drives it; no browser download).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Browser tests need Debian's chromium: run 'apt-get install -y chromium' as root." >&2
  exit 1
fi
echo "Installing Debian's chromium for the browser tests..."
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
