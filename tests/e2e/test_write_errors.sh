# Audit of the issue-2 contract: behaviours owned outside src/io and cmd_softmax/cmd_matmul,
# written failing-first. Each expectation quotes the issue.

# "Exit codes: ... 1 runtime/numeric failure (e.g. write error)": every command that prints,
# not only attend/softmax/matmul, must notice that standard output could not be written.
for cmd in "example simple" "example" "example --check" "--version" "--help" "attend --help"; do
    # shellcheck disable=SC2086  # word splitting of $cmd is intended
    "$ATTN" $cmd > /dev/full 2> "$T/err" < /dev/null; CODE=$?
    ERR=$(cat "$T/err")
    expect_code 1 "attn $cmd > /dev/full"
    expect_err_has "write error" "attn $cmd > /dev/full says so"
done

# "--masked-rows zero|nan|uniform: what a query row gets when every key is masked ... Never
# produce NaN silently otherwise." Row 1 of X = [[1e20, 0], [0, 1]] has the score 1e40, which
# overflows float32: no key is masked, so NaN there is an overflow, not the policy's NaN.
printf '1e20 0\n0 1\n' > "$T/overflow"
run attend -x "$T/overflow" --masked-rows nan --show weights,context
expect_code 1 "--masked-rows nan must not hide an overflow"
expect_err_has "overflow float32" "overflow under --masked-rows nan is reported"
expect_out_empty "overflow under --masked-rows nan: no output"

# The projected matrices are results too: X·W_q = 1e20·1e20 overflows float32, and
# --show queries must not print 'inf' (or json null) as if it were the query.
printf '1e20\n' > "$T/x1"; printf '1e20\n' > "$T/w1"
for what in queries keys values; do
    case $what in queries) w=--wq ;; keys) w=--wk ;; values) w=--wv ;; esac
    run attend -x "$T/x1" $w "$T/w1" --show $what --format json
    expect_code 1 "--show $what with an overflowing projection"
    expect_out_empty "--show $what with an overflowing projection: no output"
done

# A boolean flag given a value means that value: --check=false shows the example, it does not
# check it ("Every option above works as written").
run example simple --check=false; expect_code 0 "example --check=false"
expect_out_has "simple — simple self-attention" "--check=false shows the example"
if grep -q "^ok " "$T/out"; then fail "--check=false ran the check"; else pass; fi

# "2 usage error (... an invalid option value such as --scale fast ...)": attend, softmax and
# matmul refuse --digits outside 0..17; example must too.
for d in -3 20; do
    run example simple --digits $d; expect_code 2 "example --digits $d"
    expect_out_empty "example --digits $d: no output"
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
