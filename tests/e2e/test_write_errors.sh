# Every command that prints notices that standard output could not be written (exit 1, "write
# error"), and says so once. (From the audit of the issue-2 contract; each expectation quotes
# the issue.)

# "Exit codes: ... 1 runtime/numeric failure (e.g. write error)": every command that prints,
# not only attend/softmax/matmul, must notice that standard output could not be written.
for cmd in "example simple" "example" "example --check" "--version" "--help" "attend --help"; do
    # shellcheck disable=SC2086  # word splitting of $cmd is intended
    "$ATTN" $cmd > /dev/full 2> "$T/err" < /dev/null; CODE=$?
    ERR=$(cat "$T/err")
    expect_code 1 "attn $cmd > /dev/full"
    expect_err_has "write error" "attn $cmd > /dev/full says so"
done

# A write error is reported once: the command's own message, not a second one from the final
# flush of standard output (before: "random" and "bench" printed two lines).
if [ -w /dev/full ]; then
    for cmd in "random --shape 100000 --seed 1" "random --shape 3 --seed 1" "variance --rows 2 --batch 1" \
               "bench --op matmul --sizes 4 --repeat 1 --warmup 0"; do
        # shellcheck disable=SC2086  # word splitting of $cmd is intended
        "$ATTN" $cmd > /dev/full 2> "$T/err" < /dev/null; CODE=$?
        ERR=$(cat "$T/err")
        expect_code 1 "attn $cmd > /dev/full"
        n=$(grep -c 'write' "$T/err")
        [ "$n" -eq 1 ] && pass || fail "attn $cmd > /dev/full: one write-error line expected, got $n: $ERR"
    done
fi
