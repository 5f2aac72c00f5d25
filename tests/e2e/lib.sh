# Helpers for end-to-end tests through the real binary. Each test file is sourced by
# run.sh with $ATTN set and a scratch directory in $T. Every check counts one pass or fail.

E2E_PASS=0
E2E_FAIL=0

pass() { E2E_PASS=$((E2E_PASS + 1)); }
fail() { E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL [$E2E_FILE] $*"; }

# The helpers read files with $(<FILE) and match text with [[ ]]: bash 5.2 does both without a
# process, where $(cat FILE) and grep cost about 5 ms each on this machine (a fork and an exec);
# the suite ran about 15,000 of them.

# run ARGS...: runs attn; sets OUT (stdout), ERR (stderr), CODE (exit status).
run() {
    "$ATTN" "$@" >"$T/out" 2>"$T/err" </dev/null
    CODE=$?
    OUT=$(<"$T/out"); ERR=$(<"$T/err")
}
# run_in FILE ARGS...: the same with FILE as standard input.
run_in() {
    local input=$1; shift
    "$ATTN" "$@" <"$input" >"$T/out" 2>"$T/err"
    CODE=$?
    OUT=$(<"$T/out"); ERR=$(<"$T/err")
}

# file_has FILE TEXT: whether a line of FILE contains TEXT, as grep -qF (TEXT of several lines:
# any of them; NUL bytes of a binary FILE are dropped before the match).
file_has() {
    local text
    case $2 in *$'\n'*) grep -qF -- "$2" "$1"; return ;; esac
    { text=$(<"$1"); } 2>/dev/null || return 1
    [[ $text == *"$2"* ]]
}

expect_code() {  # expect_code N DESCRIPTION
    if [ "$CODE" -eq "$1" ]; then pass; else fail "$2: exit $CODE, expected $1; stderr: $ERR"; fi
}
expect_out_has() {  # expect_out_has TEXT DESCRIPTION
    if file_has "$T/out" "$1"; then pass; else fail "$2: stdout lacks '$1'"; fi
}
expect_err_has() {
    if file_has "$T/err" "$1"; then pass; else fail "$2: stderr lacks '$1'; stderr: $ERR"; fi
}
expect_out_empty() {
    if [ ! -s "$T/out" ]; then pass; else fail "$1: stdout not empty"; fi
}

# expect_close EXPECTED_FILE ACTUAL_FILE TOL DESCRIPTION: every number (comments and
# non-numeric tokens skipped) agrees within TOL absolute, and the counts match.
expect_close() {
    local msg
    msg=$(awk -v tol="$3" '
        function nums(file, arr,   n, line, i, k, f) {
            n = 0
            while ((getline line < file) > 0) {
                sub(/#.*/, "", line); gsub(/[,;\[\]()]/, " ", line)
                k = split(line, f, /[ \t]+/)
                for (i = 1; i <= k; i++) if (f[i] ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) arr[++n] = f[i] + 0
            }
            close(file); return n
        }
        BEGIN {
            ne = nums(ARGV[1], e); na = nums(ARGV[2], a)
            if (ne != na) { print "expected " ne " numbers, got " na; exit }
            if (ne == 0) { print "no numbers"; exit }
            for (i = 1; i <= ne; i++) { d = e[i] - a[i]; if (d < 0) d = -d
                if (d > tol) { print "number " i ": expected " e[i] ", got " a[i]; exit } }
        }' "$1" "$2")
    if [ -z "$msg" ]; then pass; else fail "$4: $msg"; fi
}

# For the tests against stored PyTorch fixtures (test_rope_alibi.sh, test_sinks_segments.sh,
# test_kv_cache.sh): they set ALLCLOSE (tests/tools/allclose) and FIXTURES (the data folder, one
# CASE folder each).

# flag CASE KEY: the value of KEY=VALUE in $FIXTURES/CASE/case.txt's first line (pairs separated
# by spaces or semicolons).
flag() { head -n 1 "$FIXTURES/$1/case.txt" | tr ' ;' '\n\n' | sed -n "s/^$2=//p" | head -n 1; }

# attend_to RUN ARGS... SHOW: attend writing npy files into $T/RUN (one result: $T/RUN/SHOW.npy,
# SHOW the --show item, which must come last).
attend_to() {
    local c=$1; shift
    rm -rf "${T:?}/$c"
    local out=$T/$c
    case "${*: -1}" in *,*) ;; *) mkdir -p "$out"; out=$out/${*: -1}.npy ;; esac
    run attend "$@" --format npy -o "$out"
    if [ "$CODE" -ne 0 ]; then fail "$c: exit $CODE: $ERR"; return 1; fi
    pass
}

# compare_npy RUN NAME CASE FILE [RTOL]: $T/RUN/NAME.npy against $FIXTURES/CASE/FILE.npy.
compare_npy() {
    local msg
    if [ ! -f "$T/$1/$2.npy" ]; then fail "$1: attn wrote no $2.npy: $ERR"; return; fi
    if msg=$("$ALLCLOSE" "$T/$1/$2.npy" "$FIXTURES/$3/$4.npy" --rtol "${5:-1e-5}" --atol 1e-6 2>&1); then pass
    else fail "$1: $2 differs from the PyTorch reference $3/$4: $msg"; fi
}
