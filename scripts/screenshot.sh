#!/usr/bin/env bash
# Renders report pages in headless Chromium.
# Usage:
#   scripts/screenshot.sh INDEX_HTML OUT_PNG [CONSOLE_LOG]
#       one PNG screenshot; the window is SCREENSHOT_WIDTH pixels wide (default 1280)
#       and SCREENSHOT_HEIGHT high (default 2000).
#   scripts/screenshot.sh --dom PAGE_HTML OUT_HTML [CONSOLE_LOG]
#       the page's DOM after load (and after its scripts ran), at the same window size;
#       the page may read the frames of local files it shows. Chromium lays a window out
#       at least 500 px wide: to measure a narrower page, show it in a frame that wide.
#   scripts/screenshot.sh --set REPORT_DIR OUT_DIR
#       the five page kinds a reviewer looks at (index, a latency suite, a
#       microbenchmark suite, a comparison, a history), each at 1400 and 390 px, as
#       OUT_DIR/KIND-WIDTH.png; a kind the report lacks is said and skipped.
# The browser's log (console messages, page errors) goes to CONSOLE_LOG when given,
# else to stderr. Exits non-zero when Chromium is missing or writes nothing.
set -euo pipefail

usage() {
    echo "usage: $0 [--dom] PAGE OUT [CONSOLE_LOG] | --set REPORT_DIR OUT_DIR" >&2
    exit 2
}

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

abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# run MODE PAGE OUT LOG: one headless Chromium run with a fresh profile and no
# background networking, so the run is hermetic.
run() {
    local mode=$1 page out log profile
    page=$(abs "$2")
    out=$(abs "$3")
    log=$4
    profile=$(mktemp -d)
    rm -f "$out"
    local width=${SCREENSHOT_WIDTH:-1280} height=${SCREENSHOT_HEIGHT:-2000}
    if [ "$mode" = shot ] && { [ "$width" -lt 500 ] || [[ $page == *#* ]]; }; then
        # Headless Chromium lays a page out at least 500 px wide however narrow its
        # window, and shoots the top of a page opened at a #section: such a page is
        # shown in a frame of exactly the window's size, scrolled inside it.
        cat >"$profile/frame.html" <<EOF
<!DOCTYPE html><html><body style="margin:0"><iframe src="file://$page" style="border:0;display:block;width:${width}px;height:${height}px"></iframe></body></html>
EOF
        page=$profile/frame.html
    fi
    local common=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
        --disable-background-networking --disable-component-update --disable-sync
        --disable-dev-shm-usage --hide-scrollbars
        --user-data-dir="$profile" --enable-logging=stderr --v=0
        --window-size="$width","$height")
    if [ "$mode" = dom ]; then
        # The page may read frames of other local files it shows (a test's measuring
        # wrapper does); nothing else is loaded.
        timeout 120 "$browser" "${common[@]}" --allow-file-access-from-files --dump-dom "file://$page" \
            >"$out" 2>"$log" </dev/null || true
    else
        timeout 120 "$browser" "${common[@]}" --screenshot="$out" "file://$page" \
            >"$log" 2>&1 </dev/null || true
    fi
    rm -rf "$profile"
    if [ ! -s "$out" ]; then
        echo "screenshot: chromium wrote nothing to $out" >&2
        return 1
    fi
}

# pick DIR MARKER PREFERRED...: the first of the preferred suite pages, then of every
# suite page by name, whose HTML holds MARKER.
pick() {
    local dir=$1 marker=$2 f
    shift 2
    for f in "${@/#/$dir/suite-}" "$dir"/suite-*.html; do
        case $f in *.html) ;; *) f=$f.html ;; esac
        if [ -f "$f" ] && grep -q -- "$marker" "$f"; then
            echo "$f"
            return 0
        fi
    done
    return 1
}

case "${1:-}" in
--set)
    [ $# -eq 3 ] || usage
    dir=$2
    outdir=$3
    mkdir -p "$outdir"
    declare -A pages=()
    pages[index]="$dir/index.html"
    # Each kind's page and the section it opens at.
    pages[latency]=$(pick "$dir" 'id="runs"' jlbh wrk hdr-percentiles || true)
    pages[microbench]=$(pick "$dir" 'id="replicates"' criterion jmh hyperfine go-bench || true)
    pages[microbench]=${pages[microbench]:+${pages[microbench]}#replicates}
    pages[compare]=$(pick "$dir" 'id="compare"' tsar || true)
    pages[compare]=${pages[compare]:+${pages[compare]}#compare}
    pages[history]=$(pick "$dir" 'id="history"' jlbh criterion || true)
    pages[history]=${pages[history]:+${pages[history]}#history}
    status=0
    for kind in index latency microbench compare history; do
        page=${pages[$kind]}
        if [ -z "$page" ]; then
            echo "screenshot: the report has no $kind page" >&2
            continue
        fi
        for width in 1400 390; do
            SCREENSHOT_WIDTH=$width run shot "$page" "$outdir/$kind-$width.png" /dev/null || status=1
            echo "$outdir/$kind-$width.png  ($(basename "$page"))"
        done
    done
    exit $status
    ;;
--dom)
    [ $# -ge 3 ] || usage
    run dom "$2" "$3" "${4:-/dev/stderr}"
    ;;
*)
    [ $# -ge 2 ] || usage
    run shot "$1" "$2" "${3:-/dev/stderr}"
    ;;
esac
