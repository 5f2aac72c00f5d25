#!/usr/bin/env bash
# Runs a doctest binary's test cases in shards side by side: UNIT_JOBS processes at a time
# (default: the online cores), each a contiguous range of the cases in name order (doctest's
# --first/--last), twice as many ranges as processes so that a range of long cases does not
# leave a core idle. CMD is the binary with anything before it (qemu-aarch64 BINARY, for the
# NEON build) and doctest options after it (a -tc filter). Prints every shard's output in
# order, then "[unit] N passed, N failed", and writes "PASSED FAILED" to COUNTS.
#   usage: tests/run-unit.sh COUNTS CMD...
set -u
counts=$1; shift
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# doctest: "[doctest] unskipped test cases passing the current filters: 301"
total=$("$@" --count 2>&1 | sed -n 's/.*passing the current filters: *\([0-9]*\).*/\1/p')
if [ -z "$total" ] || [ "$total" -eq 0 ]; then  # (with none, --first=1 --last=0 would run them all)
    echo "[unit] no test case to run: $*"; echo "0 1" >"$counts"; exit 1
fi
shards=$((2 * jobs)); [ "$total" -lt "$shards" ] && shards=$total

passed=0 failed=0 next=0
report_ready() {  # the finished shards at the front of the order
    while [ "$next" -lt "$shards" ] && [ -e "$work/$next.rc" ]; do
        local rc line size p=0 f=0
        echo "[unit] shard $((next + 1)) of $shards: cases $(cat "$work/$next.range") in name order"
        cat "$work/$next.log"
        rc=$(cat "$work/$next.rc")
        read -r size <"$work/$next.size"
        # "[doctest] test cases: 12 | 11 passed | 1 failed | 0 skipped": the failed count is the
        # range's; "passed" counts every case passing the filters, in the range or not, so a
        # range's passes are its cases less its failures.
        line=$(grep -E '^\[doctest\] test cases:' "$work/$next.log" | tail -n 1)
        if [ -n "$line" ]; then
            f=$(sed -E 's/.*\| *([0-9]+) failed.*/\1/' <<<"$line")
            p=$((size - f))
        else
            echo "[unit] shard $((next + 1)) of $shards printed no summary"; f=1
        fi
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "[unit] shard $((next + 1)) of $shards exited with status $rc"; p=0 f=1
        fi
        passed=$((passed + p)) failed=$((failed + f)) next=$((next + 1))
    done
}
for ((s = 0; s < shards; s++)); do
    first=$((s * total / shards + 1)) last=$(((s + 1) * total / shards))
    echo $((last - first + 1)) >"$work/$s.size"
    echo "$first-$last of $total" >"$work/$s.range"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; report_ready; done
    { "$@" --order-by=name --first="$first" --last="$last" >"$work/$s.log" 2>&1 </dev/null
      echo $? >"$work/$s.rc.tmp"; mv "$work/$s.rc.tmp" "$work/$s.rc"; } &
done
wait
report_ready
echo "[unit] $passed passed, $failed failed"
echo "$passed $failed" >"$counts"
[ "$failed" -eq 0 ]
