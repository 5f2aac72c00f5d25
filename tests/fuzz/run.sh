#!/usr/bin/env bash
# Runs each libFuzzer harness (tests/fuzz/fuzz_NAME.cpp, built as DIR/fuzz_NAME) for SECONDS
# seconds, starting from the checked-in seeds (tests/fuzz/corpus/NAME) with the checked-in
# dictionary; new inputs go to DIR/corpus-NAME (not checked in), a crash to DIR/crash-NAME-*.
# SECONDS=0 only replays the seeds (every crash ever found stays there as a regression input).
# Prints the executions of each harness and appends them to DIR/executions.txt.
#   usage: tests/fuzz/run.sh DIR SECONDS [NAME...]
set -u
dir=$(cd "$1" && pwd) secs=$2; shift 2  # absolute: the cli harness changes directory
here=$(cd "$(dirname "$0")" && pwd)
names=("$@"); [ ${#names[@]} -eq 0 ] && names=(text npy cli model)
status=0
for n in "${names[@]}"; do
    bin=$dir/fuzz_$n
    mkdir -p "$dir/corpus-$n"
    log=$dir/fuzz-$n.log
    if [ "$secs" -eq 0 ]; then
        "$bin" -runs=0 -rss_limit_mb=2048 "$here/corpus/$n" >"$log" 2>&1
    else
        "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
            -dict="$here/$n.dict" -artifact_prefix="$dir/crash-$n-" "$dir/corpus-$n" "$here/corpus/$n" >"$log" 2>&1
    fi
    rc=$?
    execs=$(grep -oE '^Done [0-9]+ runs' "$log" | awk '{print $2}' | tail -n 1)
    [ -z "$execs" ] && execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    if [ "$rc" -eq 0 ]; then
        echo "fuzz $n: ${secs}s, $execs executions, no finding"
        [ "$secs" -gt 0 ] && echo "$(date -u +%FT%TZ) $n ${secs}s $execs" >> "$dir/executions.txt"
    else
        echo "fuzz $n: FINDING (exit $rc), see $log and $dir/crash-$n-*"; tail -n 30 "$log"; status=1
    fi
done
exit $status
