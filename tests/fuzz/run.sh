#!/usr/bin/env bash
# Runs each libFuzzer harness (tests/fuzz/fuzz_NAME.cpp, built as DIR/fuzz_NAME) for SECONDS
# seconds, starting from the checked-in seeds (tests/fuzz/corpus/NAME) with the checked-in
# dictionary; new inputs go to DIR/corpus-NAME (not checked in), a crash to DIR/crash-NAME-*.
# SECONDS=0 only replays the seeds (every crash ever found stays there as a regression input).
# Harnesses run side by side, one per online core (each is single-threaded), so the whole
# takes SECONDS per batch of cores rather than per harness; results are reported in order.
# Prints the executions of each harness and appends them to DIR/executions.txt.
#   usage: tests/fuzz/run.sh DIR SECONDS [NAME...]
set -u
dir=$(cd "$1" && pwd) secs=$2; shift 2  # absolute: the cli harness changes directory
here=$(cd "$(dirname "$0")" && pwd)
names=("$@"); [ ${#names[@]} -eq 0 ] && names=(text npy cli model)
cores=$(nproc 2>/dev/null || echo 1)

# The command line's dictionary gets the arch table's names (src/arch/arches.def) added here,
# so that the table stays the one list of them.
{ cat "$here/cli.dict"; sed -n 's/^ATTN_ARCH(\([a-z0-9_]*\),.*/"\1"/p' "$here/../../src/arch/arches.def"; } >"$dir/cli.dict"

# One harness; its exit status goes to DIR/fuzz-NAME.rc.
run_one() {
    local n=$1 bin=$dir/fuzz_$1 log=$dir/fuzz-$1.log dict=$here/$1.dict
    [ "$n" = cli ] && dict=$dir/cli.dict
    mkdir -p "$dir/corpus-$n"
    if [ "$secs" -eq 0 ]; then
        "$bin" -runs=0 -rss_limit_mb=2048 "$here/corpus/$n" >"$log" 2>&1
    else
        "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
            -dict="$dict" -artifact_prefix="$dir/crash-$n-" "$dir/corpus-$n" "$here/corpus/$n" >"$log" 2>&1
    fi
    echo $? >"$dir/fuzz-$n.rc"
}

for n in "${names[@]}"; do
    rm -f "$dir/fuzz-$n.rc"
    while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n; done
    run_one "$n" &
done
wait

status=0
for n in "${names[@]}"; do
    log=$dir/fuzz-$n.log
    rc=$(cat "$dir/fuzz-$n.rc" 2>/dev/null || echo missing)
    execs=$(grep -oE '^Done [0-9]+ runs' "$log" | awk '{print $2}' | tail -n 1)
    [ -z "$execs" ] && execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    if [ "$rc" = 0 ]; then
        echo "fuzz $n: ${secs}s, $execs executions, no finding"
        [ "$secs" -gt 0 ] && echo "$(date -u +%FT%TZ) $n ${secs}s $execs" >> "$dir/executions.txt"
    else
        echo "fuzz $n: FINDING (exit $rc), see $log and $dir/crash-$n-*"; tail -n 30 "$log"; status=1
    fi
done
exit $status
