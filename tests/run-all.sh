#!/usr/bin/env bash
# Runs the unit tests (doctest, in shards side by side: run-unit.sh) and the end-to-end tests
# against BUILD/attn (files side by side: e2e/run.sh), then prints the combined count as the
# last line: "N passed, N failed".
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0

unit_counts=$(mktemp)
bash "$here/run-unit.sh" "$unit_counts" "$build/attn_tests"
read -r up uf < "$unit_counts" || { up=0; uf=1; }
rm -f "$unit_counts"
passed=$((passed + up)); failed=$((failed + uf))

# A sanitizer build's e2e processes may run with options of their own (the Makefile's test-sanitize).
e2e_counts=$(mktemp)
ASAN_OPTIONS=${E2E_ASAN_OPTIONS:-${ASAN_OPTIONS:-}} bash "$here/e2e/run.sh" "$build/attn" "$e2e_counts"
read -r ep ef < "$e2e_counts" || { ep=0; ef=1; }
rm -f "$e2e_counts"
passed=$((passed + ep)); failed=$((failed + ef))

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
