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

# A Q·Kᵀ product that overflows toward -inf under a moderate scale is weight 0, which is float32's
# weight there (it trails the finite scores by at least |scale|·1e31): --show weights gives what
# the fused path gives. Only a tiny scale (below 1e-29: tests/bad/*product_overflow_small_scale)
# makes it an error. (A review found --scale 0.5 refused.)
printf '2e19 0\n1 0\n' > "$T/q_ovf"; printf -- '-2e19 0\n1 0\n' > "$T/k_ovf"; printf '1 2\n3 4\n' > "$T/v_ovf"
run attend -q "$T/q_ovf" -k "$T/k_ovf" -v "$T/v_ovf" --scale 0.5 --format csv
expect_code 0 "fused context with a product overflowing toward -inf, scale 0.5"
cp "$T/out" "$T/ovf_fused"
run attend -q "$T/q_ovf" -k "$T/k_ovf" -v "$T/v_ovf" --scale 0.5 --show weights,context --format csv
expect_code 0 "weights with a product overflowing toward -inf, scale 0.5"
expect_out_has "0,1" "the overflowed key's weight is 0"
if [ "$(grep -A2 '^# context' "$T/out" | tail -2)" = "$(cat "$T/ovf_fused")" ]; then pass
else fail "the materialised context is not the fused one: $(cat "$T/out")"; fi
