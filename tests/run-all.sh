#!/usr/bin/env bash
# Runs the unit tests (doctest) and the end-to-end tests against BUILD/attn, then prints
# the combined count as the last line: "N passed, N failed".
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0

unit_log=$(mktemp)
"$build/attn_tests" 2>&1 | tee "$unit_log"
unit_rc=${PIPESTATUS[0]}
# doctest: "[doctest] test cases: 12 | 11 passed | 1 failed | 0 skipped"
line=$(grep -E '^\[doctest\] test cases:' "$unit_log" | tail -n 1)
if [ -n "$line" ]; then
    up=$(sed -E 's/.*\| *([0-9]+) passed.*/\1/' <<<"$line")
    uf=$(sed -E 's/.*\| *([0-9]+) failed.*/\1/' <<<"$line")
    passed=$((passed + up)); failed=$((failed + uf))
fi
if [ "$unit_rc" -ne 0 ] && { [ -z "$line" ] || [ "${uf:-0}" -eq 0 ]; }; then
    echo "unit tests exited with status $unit_rc"; failed=$((failed + 1))
fi
rm -f "$unit_log"

e2e_counts=$(mktemp)
bash "$here/e2e/run.sh" "$build/attn" "$e2e_counts"
read -r ep ef < "$e2e_counts" || { ep=0; ef=1; }
rm -f "$e2e_counts"
passed=$((passed + ep)); failed=$((failed + ef))

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
