# An overflow is reported (exit 1), never printed as a result: not hidden behind --masked-rows nan,
# not as an inf query, key or value. (From the audit of the issue-2 contract.)

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
