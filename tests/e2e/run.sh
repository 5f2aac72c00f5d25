#!/usr/bin/env bash
# Runs every tests/e2e/test_*.sh against the binary given as $1 and writes
# "PASSED FAILED" to the file given as $2. E2E_ONLY=NAME runs tests/e2e/test_NAME.sh only.
# Files run side by side, E2E_JOBS at a time (default: the online cores; most checks are one
# short single-threaded process each, so a lone file leaves a core idle). Each file runs in its
# own bash with lib.sh, its own scratch directory $T and the repository root as working
# directory; its output is printed whole, in name order, with its time. Under a sanitizer build
# (ATTN_SANITIZER) a file with a line "# e2e: not under a sanitizer: REASON" is skipped: its
# checks are of text or timing, not of the memory the sanitizer watches.
set -u
ATTN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
export ATTN ROOT
jobs=${E2E_JOBS:-$(nproc 2>/dev/null || echo 1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

files=()
for f in "$here"/test_${E2E_ONLY:-*}.sh; do [ -e "$f" ] && files+=("$f"); done

# One file: its output in $work/N.log, then "PASSED FAILED SECONDS" in $work/N.done (a file
# that exits early, or whose bash dies, leaves no counts and counts one failure).
run_file() {
    local n=$1 f=$2 start=$SECONDS
    # The file is sourced as run.sh sourced it before: its variables may take any name, so the
    # counts' path is kept in a name of the runner's own (E2E_COUNTS), set before.
    (
        cd "$ROOT" || exit 1
        E2E_COUNTS=$work/$n.counts T=$(mktemp -d) E2E_FILE=$(basename "$f")
        # shellcheck source=lib.sh
        source "$here/lib.sh"
        source "$f"
        rm -rf "$T"
        echo "$E2E_PASS $E2E_FAIL" >"$E2E_COUNTS"
    ) >"$work/$n.log" 2>&1 </dev/null
    echo "$((SECONDS - start))" >"$work/$n.time"
    mv "$work/$n.time" "$work/$n.done"
}

# The reason a file gives for not running under a sanitizer build, if it runs under one.
sanitizer_skip() {
    [ -n "${ATTN_SANITIZER:-}" ] && sed -n 's/^# e2e: not under a sanitizer: //p' "$1" | head -n 1
}

passed=0 failed=0 next=0
# Prints the finished files at the front of the name order.
report_ready() {
    while [ "$next" -lt "${#files[@]}" ] && [ -e "$work/$next.done" ]; do
        local name p=0 f=1
        name=$(basename "${files[$next]}")
        cat "$work/$next.log"
        if [ -s "$work/$next.counts" ]; then read -r p f <"$work/$next.counts"; else
            echo "FAIL [$name] the file stopped before its end (exit or crash of its bash)"; fi
        echo "[e2e] $name: $p passed, $f failed ($(cat "$work/$next.done") s)"
        passed=$((passed + p)) failed=$((failed + f)) next=$((next + 1))
    done
}

for i in "${!files[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; report_ready; done
    reason=$(sanitizer_skip "${files[$i]}")
    if [ -n "$reason" ]; then
        echo "[e2e] skipped under a sanitizer: $reason" >"$work/$i.log"; echo "0 0" >"$work/$i.counts"; echo 0 >"$work/$i.done"
        continue
    fi
    run_file "$i" "${files[$i]}" &
done
wait
report_ready
echo "$passed $failed" >"$2"
