#!/usr/bin/env bash
# Runs the aarch64 unit tests in BUILD (default build-neon) under qemu-aarch64 (the dispatch
# tests among them check that the NEON row is selected there). Last line: "neon: N passed, N failed".
set -u
build=${1:-build-neon}
qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static) || { echo "qemu-aarch64 not found"; echo "neon: 0 passed, 1 failed"; exit 1; }
passed=0 failed=0

# Emulation is ~10-50x slower than native: the sweeps over the float range take every 611th
# bit pattern instead of every 61st (ATTN_TEST_SWEEP_STRIDE; at every 61st the two sweeps were 77 of the
# run's 295 s of CPU), and the threaded tests compare 1 thread with 7 only, the most partitions
# of the rows (ATTN_TEST_THREADS; the run took 193 s of CPU instead of 240 with 2, 3 and 7); the
# timeout keeps CI bounded whatever happens. The cases run in shards side by side
# (run-unit.sh): qemu-user emulates one thread per host thread.
counts=$(mktemp)
ATTN_TEST_SWEEP_STRIDE=611 ATTN_TEST_THREADS=7 bash "$(dirname "$0")/run-unit.sh" "$counts" timeout 1500 "$qemu" "$build/attn_tests"
read -r passed failed < "$counts" || { passed=0; failed=1; }
rm -f "$counts"

echo "neon: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
