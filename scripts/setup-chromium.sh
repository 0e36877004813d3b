#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing; prints its path last.
# playwright-core drives it (no browser download: the registry is the only thing reachable).
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  echo "setup-chromium: installing Debian's chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi
command -v chromium
