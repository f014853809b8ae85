#!/usr/bin/env bash
# Renders a report page in headless Chromium and writes a PNG screenshot.
# Usage: scripts/screenshot.sh INDEX_HTML OUT_PNG [CONSOLE_LOG]
# The window is SCREENSHOT_WIDTH pixels wide (default 1280) and 2000 high.
# The browser's log (console messages, page errors) goes to CONSOLE_LOG when given,
# else to stderr. Exits non-zero when Chromium is missing or writes no screenshot.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 INDEX_HTML OUT_PNG [CONSOLE_LOG]" >&2
    exit 2
fi
page=$1
out=$2
log=${3:-/dev/stderr}

browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
        browser=$candidate
        break
    fi
done
if [ -z "$browser" ]; then
    echo "screenshot: no chromium found (apt-get install -y chromium)" >&2
    exit 3
fi

abs_page=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
abs_out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

rm -f "$abs_out"
# A fresh profile and no background networking keep the run hermetic.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 \
    --window-size="${SCREENSHOT_WIDTH:-1280}",2000 --screenshot="$abs_out" "file://$abs_page" \
    >"$log" 2>&1 </dev/null || true

if [ ! -s "$abs_out" ]; then
    echo "screenshot: chromium wrote no screenshot to $abs_out" >&2
    exit 1
fi
