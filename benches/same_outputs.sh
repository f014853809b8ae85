#!/usr/bin/env bash
# Saves the outputs of the read commands on one database, so that two binaries can be
# compared byte for byte (`diff -r`): a speed-up must leave every output as it was.
#
#   benches/same_outputs.sh BIN DB COMMIT OUT
#
# BIN: a bench-db binary; DB: a database built by `cargo bench --bench ci_scale -- N
# --keep DIR` (DIR/N/ci.db); COMMIT: the candidate commit (the last pull-request commit:
# `bench-db runs 'tag.branch=pr-…'`); OUT: a new folder for the outputs.
set -euo pipefail
bin=$(realpath "$1") db=$(realpath "$2") commit=$3 out=$4
mkdir -p "$out"
cd "$out"
out=.
run() { local name=$1; shift; "$bin" --db "$db" "$@" > "$out/$name" 2> "$out/$name.err" || echo "exit $?" >> "$out/$name.exit"; }
base='tag.branch=main;latest=10'
run gate.json gate --baseline "$base" --candidate "tag.commit=$commit" --json
run gate.txt gate --baseline "$base" --candidate "tag.commit=$commit"
run gate.md gate --baseline "$base" --candidate "tag.commit=$commit" --format markdown
run compare.json compare --baseline "$base" --candidate "tag.commit=$commit" --json
run compare.txt compare --baseline 'suite=order-entry;tag.branch=main;latest=20' --candidate 'suite=order-entry;tag.branch=main;latest=10'
run compare2.json compare --baseline 'suite=order-entry;tag.branch=main;latest=20' --candidate 'suite=order-entry;tag.branch=main;latest=10' --json
run history.json history 'tag.branch=main' --json
run history.txt history 'tag.branch=main;suite=risk'
run runs.json runs --json
# The history terms alone and together (answered from the indexes when they can be).
run latest.txt runs 'latest=7'
run latest-suite.txt runs 'suite=risk;tag.branch=main;latest=3'
run latest-range.txt runs 'run=1000..5000;latest=4'
run latest-time.txt runs 'time>=2026-01-02T00:00:00Z;time<2026-01-05T00:00:00Z;latest=5'
run time.txt runs 'time>=2026-01-02T00:00:00Z;time<2026-01-03T00:00:00Z'
run branch.txt runs "tag.commit=$commit"
run export.csv export
run report.txt report --out report
