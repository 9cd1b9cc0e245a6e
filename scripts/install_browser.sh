#!/usr/bin/env bash
# Install Debian's Chromium for the lab's end-to-end test (tests/e2e/). Idempotent.
# Playwright drives this system browser; `playwright install` is never needed.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-liberation
/usr/bin/chromium --version
