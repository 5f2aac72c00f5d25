# Helpers for end-to-end tests through the real binary. Each test file is sourced by
# run.sh with $ATTN set and a scratch directory in $T. Every check counts one pass or fail.

E2E_PASS=0
E2E_FAIL=0

pass() { E2E_PASS=$((E2E_PASS + 1)); }
fail() { E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL [$E2E_FILE] $*"; }

# run ARGS...: runs attn; sets OUT (stdout), ERR (stderr), CODE (exit status).
run() {
    "$ATTN" "$@" >"$T/out" 2>"$T/err" </dev/null
    CODE=$?
    OUT=$(cat "$T/out"); ERR=$(cat "$T/err")
}
# run_in FILE ARGS...: the same with FILE as standard input.
run_in() {
    local input=$1; shift
    "$ATTN" "$@" <"$input" >"$T/out" 2>"$T/err"
    CODE=$?
    OUT=$(cat "$T/out"); ERR=$(cat "$T/err")
}

expect_code() {  # expect_code N DESCRIPTION
    if [ "$CODE" -eq "$1" ]; then pass; else fail "$2: exit $CODE, expected $1; stderr: $ERR"; fi
}
expect_out_has() {  # expect_out_has TEXT DESCRIPTION
    if grep -qF -- "$1" "$T/out"; then pass; else fail "$2: stdout lacks '$1'"; fi
}
expect_err_has() {
    if grep -qF -- "$1" "$T/err"; then pass; else fail "$2: stderr lacks '$1'; stderr: $ERR"; fi
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
