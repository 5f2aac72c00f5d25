# The "attn hardening" audit findings, one check (or a few) each: the shared safe writer,
# overflow toward -inf, no partial output, bounded sizes and dimensions, SIGPIPE, CR line
# ends, underflowing options, escaped labels, the bench work cap.
# Under a sanitizer build (ATTN_SANITIZER set) the ulimit -v checks are skipped: ASan
# reserves terabytes of address space.

# ---- the shared writer ----------------------------------------------------------------
# A planted PATH.tmp link must not redirect the output onto its target.
echo "victim" > "$T/victim"
ln -s "$T/victim" "$T/r.csv.tmp"
run random --seed 1 --shape 2,2 -o "$T/r.csv"
expect_code 0 "random -o beside a planted PATH.tmp link"
if [ "$(cat "$T/victim")" = "victim" ]; then pass; else fail "random -o: the planted PATH.tmp link's target was overwritten"; fi
if [ -f "$T/r.csv" ] && [ ! -L "$T/r.csv" ] && grep -qx '0.661352158,0.266924113' "$T/r.csv"; then pass; else fail "random -o: r.csv not written"; fi

# A symbolic link as PATH is written through: the link stays, its target gets the data.
for cmd in random softmax; do
    echo old > "$T/target.$cmd"
    ln -sf "target.$cmd" "$T/link.$cmd"
    if [ $cmd = random ]; then run random --seed 1 --shape 2,2 -o "$T/link.$cmd"
    else run softmax "$ROOT/data/examples/simple/x.txt" -o "$T/link.$cmd"; fi
    expect_code 0 "$cmd -o LINK"
    if [ -L "$T/link.$cmd" ] && [ "$(readlink "$T/link.$cmd")" = "target.$cmd" ]; then pass; else fail "$cmd -o LINK: the link was replaced"; fi
    if grep -q '[0-9]' "$T/target.$cmd"; then pass; else fail "$cmd -o LINK: the link's target was not written"; fi
done
# A dangling link: the file it names is created.
ln -s "made.csv" "$T/dangling"
run random --seed 1 --shape 2,2 -o "$T/dangling"
if [ -L "$T/dangling" ] && [ -s "$T/made.csv" ]; then pass; else fail "random -o DANGLING_LINK: not written through"; fi

# A FIFO is written in place (not replaced by a regular file).
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" > "$T/fifo.out" &
reader=$!
run random --seed 1 --shape 2,2 -o "$T/fifo"
expect_code 0 "random -o FIFO"
if [ -p "$T/fifo" ]; then pass; else fail "random -o FIFO: the FIFO was replaced"; kill "$reader" 2>/dev/null; fi
wait "$reader" 2>/dev/null
if grep -qx '0.661352158,0.266924113' "$T/fifo.out"; then pass; else fail "random -o FIFO: the reader got nothing"; fi

# An existing file's mode is kept (every command, through the one writer).
for cmd in random softmax; do
    echo old > "$T/mode.$cmd"; chmod 600 "$T/mode.$cmd"
    if [ $cmd = random ]; then run random --seed 1 --shape 2,2 -o "$T/mode.$cmd"
    else run softmax "$ROOT/data/examples/simple/x.txt" -o "$T/mode.$cmd"; fi
    mode=$(stat -c %a "$T/mode.$cmd")
    if [ "$mode" = 600 ]; then pass; else fail "$cmd -o FILE(0600): mode became $mode"; fi
done

# Nothing is left behind in the target's folder: no temporary files after success or failure.
mkdir "$T/clean"
run random --seed 1 --shape 2,2 -o "$T/clean/a.csv"
run softmax "$ROOT/data/examples/simple/x.txt" -o "$T/clean/b.csv"
run random --seed 1 --shape 2,2 --format json -o "$T/clean/c.json"
left=$(ls -A "$T/clean" | tr '\n' ' ')
if [ "$left" = "a.csv b.csv c.json " ]; then pass; else fail "temporary files left behind: $left"; fi

# A read-only file is not replaced behind its owner's back (not even by root through the folder).
if [ "$(id -u)" -ne 0 ]; then
    echo keep > "$T/ro.csv"; chmod 444 "$T/ro.csv"
    run softmax "$ROOT/data/examples/simple/x.txt" -o "$T/ro.csv"
    expect_code 1 "-o READ_ONLY_FILE"
    if [ "$(cat "$T/ro.csv")" = keep ]; then pass; else fail "-o READ_ONLY_FILE: replaced"; fi
fi

# ---- overflow toward -inf is an overflow, not a masked row -----------------------------
printf '2 2\n' > "$T/q1"; printf '2 2\n1 1\n' > "$T/k2"; printf '1 0\n0 1\n' > "$T/v2"
for show in context weights; do
    run attend -q "$T/q1" -k "$T/k2" -v "$T/v2" --scale=-3e38 --show $show
    expect_code 1 "attend --scale=-3e38 --show $show (scores overflow toward -inf)"
    expect_out_empty "attend --scale=-3e38 --show $show"
    expect_err_has "scaled scores of 1 row overflow float32" "attend --scale=-3e38 --show $show"
done
# In a big result the first value out of range is named by its row, wherever it lies: rows
# 1201 and 2901 of 3000 overflow (the checks are made in blocks of rows by all threads); the
# message counts from 0, as it says (row 1200).
awk 'BEGIN { for (i = 1; i <= 3000; i++) { v = (i == 1201 || i == 2901) ? "3e19" : (i % 7) / 7;
             printf "%s %s %s %s\n", v, v, v, v } }' > "$T/qbig"
awk 'BEGIN { for (i = 1; i <= 40; i++) { v = (i == 8) ? "3e19" : (i % 5) / 5; printf "%s %s %s %s\n", v, v, v, v } }' > "$T/kbig"
for show in scores scaled weights; do
    run attend -q "$T/qbig" -k "$T/kbig" -v "$T/kbig" --show $show
    expect_code 1 "attend --show $show, overflow at row 1201 of 3000"
    expect_out_empty "attend --show $show, overflow at row 1201 of 3000"
    name=$show; [ "$show" = scaled ] && name="scaled scores"
    expect_err_has "$name row 1200, column " "attend --show $show names the first overflowing row"
done
printf -- '-3e38 -3e38\n' > "$T/bias"
run attend -q "$T/q1" -k "$T/k2" -v "$T/v2" --scale=-3e38 --bias "$T/bias"
expect_code 1 "attend with a finite bias of -3e38"
# A real mask still counts as masked (exit 0), even with the same large scale.
printf -- '-inf -inf\n' > "$T/maskbias"
run attend -q "$T/q1" -k "$T/k2" -v "$T/v2" --bias "$T/maskbias"
expect_code 0 "attend: a row masked by a -inf bias is still a masked row"

# ---- no partial output when a command fails --------------------------------------------
if [ -w /dev/full ]; then
    run attend -x "$ROOT/data/examples/simple/x.txt" --svg - -o /dev/full
    expect_code 1 "attend --svg - -o /dev/full"
    expect_out_empty "attend --svg - -o /dev/full: the SVG must not reach stdout"
    run attend -x "$ROOT/data/examples/simple/x.txt" --svg "$T/left.svg" -o /dev/full
    expect_code 1 "attend --svg FILE -o /dev/full"
    if [ ! -e "$T/left.svg" ]; then pass; else fail "attend --svg FILE -o /dev/full: FILE left behind"; fi
    run random --seed 1 --shape 3,2 -o /dev/full
    expect_code 1 "random -o /dev/full"
    expect_err_has "/dev/full" "random -o /dev/full names the file"
fi

# ---- sizes and dimensions ----------------------------------------------------------------
run random --seed 1 --shape 268435456,1,1 --format json
expect_code 2 "random --shape 268435456,1,1 --format json"
expect_out_empty "random --shape 268435456,1,1 --format json: no partial JSON"
run random --seed 1 --shape 268435456,1,1
expect_code 2 "random --shape 268435456,1,1 (more than 2^28 lines of tiny matrices)"
expect_out_empty "random --shape 268435456,1,1"
# an empty tensor (torch.randn(3, 0, 2)) would not read back: refused
run random --seed 1 --shape 3,0,2
expect_code 2 "random --shape 3,0,2"
expect_err_has "a dimension of 0 makes an empty tensor" "random --shape 3,0,2 says why"
dims33=$(printf '1,%.0s' $(seq 32))1
run random --seed 1 --shape "$dims33" --format json
expect_code 2 "random: 33 dimensions"
expect_err_has "more than 32 dimensions" "random: 33 dimensions"
dims32=$(printf '1,%.0s' $(seq 31))1
run random --seed 1 --shape "$dims32" --format json
expect_code 0 "random: 32 dimensions are fine"
big=$(printf '1,%.0s' $(seq 64999))1
run random --seed 1 --shape "$big" --format json
expect_code 2 "random: 65,000 dimensions (was a stack overflow)"

# Text output of a large draw is streamed: memory is the data plus a buffer, not a string per cell.
if [ -z "${ATTN_SANITIZER:-}" ]; then
    # COLUMNS wide enough for a whole row: one line per row (pretty wraps to $COLUMNS).
    ( ulimit -v 300000; COLUMNS=100000 "$ATTN" random --seed 1 --shape 2048,4096 --format pretty -o "$T/big.txt" 2>"$T/err" )
    CODE=$?; ERR=$(cat "$T/err")
    expect_code 0 "random 2048x4096 pretty under ulimit -v 300 MB"
    lines=$(wc -l < "$T/big.txt" 2>/dev/null || echo 0)
    if [ "$lines" -eq 2049 ]; then pass; else fail "random 2048x4096: $lines lines, expected 2049"; fi
    rm -f "$T/big.txt"
fi

# A stream of zeros after the npy magic stops at the bad version, not after 2 GiB.
{ printf '\223NUMPY'; head -c 200000000 /dev/zero; } > "$T/zeros.npy"
if [ -z "${ATTN_SANITIZER:-}" ]; then
    ( ulimit -v 150000; timeout 20 "$ATTN" softmax - < "$T/zeros.npy" >"$T/out" 2>"$T/err" ); CODE=$?
else
    timeout 60 "$ATTN" softmax - < "$T/zeros.npy" >"$T/out" 2>"$T/err"; CODE=$?
fi
ERR=$(cat "$T/err")
expect_code 3 "npy magic then zeros on stdin"
expect_err_has "unsupported .npy version 0.0" "npy magic then zeros"
# A valid header followed by far more bytes than it promises: stopped at the promise.
{ cat "$ROOT/data/fixtures/floats_le_f4_c.npy"; head -c 50000000 /dev/zero; } | "$ATTN" softmax - >"$T/out" 2>"$T/err"; CODE=$?; ERR=$(cat "$T/err")
expect_code 3 "npy followed by 50 MB on a pipe"
expect_err_has "unexpected bytes after the array data" "npy followed by 50 MB on a pipe"
{ cat "$ROOT/data/fixtures/floats_le_f4_c.npy"; printf 'abc'; } > "$T/extra.npy"
run softmax "$T/extra.npy"
expect_err_has "3 unexpected bytes after the array data" "npy with 3 extra bytes in a file: exact count"

# ---- SIGPIPE: one behaviour for every command --------------------------------------------
"$ATTN" random --seed 1 --shape 2000,100 2>"$T/err" | head -n 1 > /dev/null
status=${PIPESTATUS[0]}
if [ "$status" -eq 141 ]; then pass; else fail "random | head: exit $status, expected 141 (SIGPIPE) as the other commands"; fi
if [ ! -s "$T/err" ]; then pass; else fail "random | head: stderr not empty: $(cat "$T/err")"; fi
# ... also the commands that print through iostreams (help, completions, tokenize), whose failed
# write left no errno by the end: they said "standard output: write error", exit 1. Found by a
# resource-limits audit. (Exit 0 when all of it reached the pipe before true exited.)
for c in "help --man" "completions zsh" "help attend"; do
    # shellcheck disable=SC2086  # $c is words
    "$ATTN" $c 2>"$T/err" | true
    status=${PIPESTATUS[0]}
    if [[ $status == @(141|0) ]] && [ ! -s "$T/err" ]; then pass; else fail "$c | true: exit $status, $(head -c 200 "$T/err")"; fi
done
# ... and those that wrote through stdio with a message of their own (tokenize, bench): written
# once the reader is gone (sleep), they end by SIGPIPE, quietly. Found by a pipelines audit.
mkdir -p "$T/tok" && gzip -dc "$ROOT/data/tokenize/bert-base-uncased/tokenizer.json.gz" >"$T/tok/tokenizer.json"
for c in "tokenize $T/tok --text hi" "bench --op softmax --sizes 8 --repeat 1 --warmup 0"; do
    # shellcheck disable=SC2086  # $c is words
    (sleep 0.3; exec "$ATTN" $c 2>"$T/err") | true
    status=${PIPESTATUS[0]}
    if [ "$status" -eq 141 ] && [ ! -s "$T/err" ]; then pass; else fail "$c to a closed pipe: exit $status, $(head -c 200 "$T/err")"; fi
done

# ---- CR-only line ends --------------------------------------------------------------------
printf '1 2\r3 4\r' > "$T/cr.txt"
run softmax "$T/cr.txt"
expect_code 0 "CR-only line ends"
if [ "$(wc -l < "$T/out")" -eq 2 ]; then pass; else fail "CR-only line ends: expected 2 rows, got: $OUT"; fi
printf 'a\rb\r' > "$T/crlabels"
printf '1 0\n0 1\n' > "$T/x2"
run attend -x "$T/x2" --labels "$T/crlabels" --format pretty
expect_code 0 "labels with CR-only line ends"

# ---- option values that underflow ---------------------------------------------------------
for s in 1e-320 1e-46; do
    run attend -x "$ROOT/data/examples/simple/x.txt" --scale "$s"
    expect_code 2 "--scale $s"
    expect_err_has "underflows float32" "--scale $s"
    run softmax "$T/x2" --scale "$s"
    expect_err_has "underflows float32" "softmax --scale $s"
done

# ---- labels with terminal escape sequences -------------------------------------------------
printf 'a\033[31mred\n\302\233bad\n' > "$T/esc_labels"
run attend -x "$T/x2" --labels "$T/esc_labels" --format pretty --show weights
expect_code 0 "labels with escape sequences"
if ! grep -q $'\033' "$T/out" && ! grep -q $'\302\233' "$T/out"; then pass; else fail "labels: escape sequences printed raw"; fi
expect_out_has "?[31mred" "labels: ESC shown as ?"
run attend -x "$T/x2" --labels "$T/esc_labels" --heatmap
if ! grep -q $'\302\233' "$T/out"; then pass; else fail "heatmap: C1 control printed raw"; fi

# ---- bench: a work cap ---------------------------------------------------------------------
run bench --op attention --sizes 1000000 --d 64
expect_code 2 "bench --sizes 1000000"
expect_err_has "GFLOP" "bench work cap message"

# variance: the plot and the table are written together, or neither is.
if [ -w /dev/full ]; then
    run variance --dk 4,8 --batch 2 --rows 4 --svg "$T/v.svg" -o /dev/full
    expect_code 1 "variance --svg FILE -o /dev/full"
    if [ ! -e "$T/v.svg" ]; then pass; else fail "variance --svg FILE -o /dev/full: the SVG was left behind"; fi
fi

# ---- a fatal signal leaves no temporary file ------------------------------------------------
# The SVG's temporary exists while attn waits to open the FIFO given as -o (no reader yet);
# SIGTERM or SIGINT at that moment must remove it and still end the process by that signal.
for sig in TERM INT HUP USR1 ALRM XCPU; do
    d="$T/signal_$sig"
    mkdir -p "$d" && mkfifo "$d/pipe"
    # A background job of a non-interactive shell starts with SIGINT ignored, and a suite run
    # under nohup has SIGHUP ignored; a shell started with a signal ignored cannot undo that
    # with trap, and attn rightly keeps an inherited SIG_IGN: env resets every signal for attn.
    env --default-signal "$ATTN" attend -x "$ROOT/data/examples/simple/x.txt" --svg "$d/out.svg" -o "$d/pipe" \
        >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        ls -A "$d" | grep -q '^\.out\.svg\.attn-' && break
        sleep 0.05
    done
    if ls -A "$d" | grep -q '^\.out\.svg\.attn-'; then pass; else fail "SIG$sig: the temporary file never appeared"; fi
    kill -"$sig" "$pid"
    # Never hang the suite: a process still waiting on the FIFO after 10 s is killed (and fails).
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    code=$?
    expect_signal=$(( 128 + $(kill -l "$sig") ))
    if [ "$code" -eq "$expect_signal" ]; then pass; else fail "SIG$sig: exit $code, expected $expect_signal"; fi
    left=$(ls -A "$d" | grep -v '^pipe$')
    if [ -z "$left" ]; then pass; else fail "SIG$sig: left behind: $left"; fi
done

# ---- a file-size limit (ulimit -f) is a write error, not a death by SIGXFSZ -------------------
# The signal killed attn at the first write past the limit and left the temporary file (and a
# new output folder). Now the write fails with "File too large": exit 1, nothing left.
d="$T/fsize"
mkdir -p "$d"
(ulimit -f 100; exec "$ATTN" random --shape 512,512 --seed 0 --format npy -o "$d/out.npy") >/dev/null 2>"$T/err"
code=$?
if [ "$code" -eq 1 ] && grep -q "File too large" "$T/err"; then pass; else fail "ulimit -f, one output: exit $code ($(cat "$T/err"))"; fi
"$ATTN" random --shape 300,16 --seed 0 --format npy -o "$T/fsize_x.npy"
(ulimit -f 100; exec "$ATTN" attend -x "$T/fsize_x.npy" --show context,weights --format npy -o "$d/dd") >/dev/null 2>"$T/err"
code=$?
if [ "$code" -eq 1 ] && grep -q "File too large" "$T/err"; then pass; else fail "ulimit -f, an output folder: exit $code ($(cat "$T/err"))"; fi
left=$(ls -A "$d")
if [ -z "$left" ]; then pass; else fail "ulimit -f: left behind: $left"; fi

# ---- output names up to the 255-byte limit ----------------------------------------------------
# The temporary beside the output added 13 bytes to its name: names of 243-255 bytes failed
# with "File name too long". Both kinds: a file, and a folder of draws.
d="$T/long_names"
mkdir -p "$d"
long=$(printf 'h%.0s' $(seq 251)).npy
run softmax "$ROOT/data/examples/simple/x.txt" -o "$d/$long"
expect_code 0 "-o with a 255-byte file name"
long_dir=$(printf 'd%.0s' $(seq 255))
run random --shape 2 --count 2 --seed 1 --format npy -o "$d/$long_dir"
expect_code 0 "random -o DIR with a 255-byte folder name"
if [ "$(ls -A "$d" | wc -l)" -eq 2 ] && [ -s "$d/$long" ] && [ -s "$d/$long_dir/draw1.npy" ]; then pass
else fail "255-byte names: $(ls -A "$d" | cut -c1-20 | tr '\n' ' ')"; fi

# ---- a result larger than the memory left is refused, not OOM-killed --------------------------
# Linux grants more memory than it has; filling Tq×Tk weights beyond it got attn killed by the
# OOM killer (exit 137). T is chosen so that T×T floats exceed MemAvailable + SwapFree here;
# ulimit -v (half of that) makes a missing check fail fast as "out of memory" instead.
avail_kb=$(awk '/^(MemAvailable|SwapFree):/ {s += $2} END {print s + 0}' /proc/meminfo)
if [ -z "${ATTN_SANITIZER:-}" ] && [ "$avail_kb" -gt 0 ]; then
    big_t=$(awk -v kb="$avail_kb" 'BEGIN {printf "%d", sqrt(kb * 1024 / 4) + 2000}')
    "$ATTN" random --shape "$big_t",1 --seed 3 --format npy -o "$T/big_x.npy"
    (ulimit -v $((avail_kb / 2)); exec "$ATTN" attend -x "$T/big_x.npy" --show weights --format npy -o "$T/big_w.npy") \
        >/dev/null 2>"$T/err"
    code=$?
    if [ "$code" -eq 1 ] && grep -q "not enough memory: a buffer of .* GB is more than the .* GB this machine has available" "$T/err"
    then pass; else fail "weights beyond the memory left (T=$big_t): exit $code ($(cat "$T/err"))"; fi
    if [ ! -e "$T/big_w.npy" ]; then pass; else fail "weights beyond the memory left: output written"; fi
    rm -f "$T/big_x.npy"
fi

# ---- one file per draw: random --count N --format npy -o DIR ---------------------------------
# The draws are written into a staging folder and appear in DIR together at the end. Killed
# midway, a run left the DIR it had made (and the draws so far), or replaced some of the draws
# of an existing DIR. Now: no DIR, or the old DIR as it was. Each case waits until the staging
# folder holds a finished draw (50 draws of 4 MB take long enough), then sends the signal.
for case in new existing; do
    d="$T/draws_$case"
    rm -rf "$d" && mkdir -p "$d"
    if [ "$case" = existing ]; then mkdir "$d/out" && echo keep > "$d/out/draw00.npy"; staging="$d/out/.attn-*"
    else staging="$d/.out.attn-*"; fi
    env --default-signal=INT "$ATTN" random --shape 1000,1000 --seed 1 --count 50 --format npy -o "$d/out" \
        >/dev/null 2>&1 &
    pid=$!
    seen=
    for _ in $(seq 400); do
        # shellcheck disable=SC2086  # $staging is a glob
        if ls $staging/draw01.npy >/dev/null 2>&1; then seen=1; break; fi
        sleep 0.02
    done
    if [ -n "$seen" ]; then pass; else fail "random -o DIR ($case): no finished draw seen in the staging folder"; fi
    kill -INT "$pid" 2>/dev/null
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    code=$?
    if [ "$code" -eq 130 ]; then pass; else fail "random -o DIR ($case) interrupted: exit $code, expected 130"; fi
    if [ "$case" = existing ]; then
        left=$(ls -A "$d/out" | tr '\n' ' ')
        if [ "$left" = "draw00.npy " ] && [ "$(cat "$d/out/draw00.npy")" = keep ]; then pass
        else fail "random -o DIR (existing) interrupted: DIR now holds: $left"; fi
    else
        left=$(ls -A "$d" | tr '\n' ' ')
        if [ -z "$left" ]; then pass; else fail "random -o DIR (new) interrupted: left behind: $left"; fi
    fi
done
run random --seed 5 --shape 2 --count 2 --format npy -o "$T/draws_new/out/x"
expect_code 1 "random -o DIR under a folder that does not exist"
if [ -z "$(ls -A "$T/draws_new")" ]; then pass; else fail "random -o DIR failed and left: $(ls -A "$T/draws_new")"; fi
run random --seed 5 --shape 2,3 --count 3 --format npy -o "$T/draws_existing/out"
expect_code 0 "random -o DIR into an existing folder"
if [ "$(ls -A "$T/draws_existing/out" | LC_ALL=C sort | tr '\n' ' ')" = "draw0.npy draw00.npy draw1.npy draw2.npy " ]; then pass
else fail "random -o DIR into an existing folder: $(ls -A "$T/draws_existing/out" | tr '\n' ' ')"; fi

# ---- a mapped input truncated while it is read -----------------------------------------------
# Inputs are mapped; another process cutting the file short makes the pages past its new end
# raise SIGBUS. attn must report it (exit 3) instead of dying of it (exit 135). Timing-dependent
# by nature: a run that finished before the cut passes too, but never a SIGBUS death.
# (ASan installs its own SIGBUS handler: not under a sanitizer build.)
if [ -z "${ATTN_SANITIZER:-}" ]; then
    yes "0.5 0.25 1 2 3 4 5 6" | head -n 4000000 > "$T/shrinking.txt"
    "$ATTN" softmax "$T/shrinking.txt" -o "$T/shrunk.csv" 2>"$T/err" &
    pid=$!
    sleep 0.05
    truncate -s 1000 "$T/shrinking.txt"
    wait "$pid" 2>/dev/null
    code=$?
    if [ "$code" -eq 0 ] || { [ "$code" -eq 3 ] && grep -q "truncated while it was being read" "$T/err"; }; then pass
    else fail "input truncated while mapped: exit $code ($(cat "$T/err"))"; fi
    if [ "$code" -ne 3 ] || [ ! -e "$T/shrunk.csv" ]; then pass; else fail "input truncated while mapped: output left behind"; fi
    rm -f "$T/shrinking.txt" "$T/shrunk.csv"
fi
