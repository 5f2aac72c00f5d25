# attn positions: Vaswani's sinusoidal table, and attend --pos sinusoidal adding it to -x.
# Expected values: the paper's formula in float64 NumPy (PE[p, 2i] = sin(p / 10000^(2i/D)),
# PE[p, 2i+1] = cos of the same), quoted here; an odd D ends with a sine.
printf '0 1 0 1 0\n0.841470985 0.540302306 0.025116223 0.999684538 0.000630957\n0.909297427 -0.416146837 0.050216599 0.998738351 0.001261914\n' >"$T/pe35"
run positions --shape 3,5 --format csv; expect_code 0 "positions --shape 3,5"
expect_close "$T/pe35" "$T/out" 1e-7 "positions --shape 3,5: the paper's table"
# --base: 2 positions of 4 with base 100: column 2 is sin(p / 100^(2/4)) = sin(p / 10).
printf '0 1 0 1\n0.841470985 0.540302306 0.099833417 0.995004165\n' >"$T/pe24"
run positions --shape 2,4 --base 100 --format csv
expect_close "$T/pe24" "$T/out" 1e-7 "positions --base 100"
# attend --pos sinusoidal is attend on X + the table: the same bits as adding it by hand.
"$ATTN" random --seed 4 --shape 6,4 --format csv >"$T/x"
"$ATTN" positions --shape 6,4 --format csv >"$T/pe"
paste -d, "$T/x" "$T/pe" | awk -F, '{ n = NF / 2; s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") sprintf("%.9g", $i + $(i + n)); print s }' >"$T/xpe"
run attend -x "$T/x" --pos sinusoidal --show weights --format csv; expect_code 0 "attend --pos sinusoidal"
"$ATTN" attend -x "$T/xpe" --show weights --format csv >"$T/want"
expect_close "$T/want" "$T/out" 2e-6 "attend --pos sinusoidal: attention of X + the table"
# Without positions attention is permutation-equivariant: reversing the tokens reverses the
# weights' rows and columns. With them it is not.
tac "$T/x" >"$T/xr"
"$ATTN" attend -x "$T/x" --show weights --format csv >"$T/w"
"$ATTN" attend -x "$T/xr" --show weights --format csv | tac | awk -F, '{ s = $NF; for (i = NF - 1; i >= 1; i--) s = s "," $i; print s }' >"$T/wr"
expect_close "$T/w" "$T/wr" 1e-6 "attention without positions is permutation-equivariant"
"$ATTN" attend -x "$T/xr" --pos sinusoidal --show weights --format csv | tac | awk -F, '{ s = $NF; for (i = NF - 1; i >= 1; i--) s = s "," $i; print s }' >"$T/wpr"
"$ATTN" attend -x "$T/x" --pos sinusoidal --show weights --format csv >"$T/wp"
if cmp -s "$T/wp" "$T/wpr"; then fail "attention with positions stayed permutation-equivariant"; else pass; fi
# Refusals.
for bad in "positions|missing --shape" "positions --shape 3|expected T,D" "positions --shape 0,4|expected T,D" \
           "positions --shape 2,2 --base 1|expected a number above 1" "attend -x $T/x --pos sinusodial|did you mean 'sinusoidal'" \
           "attend -q $T/x -k $T/x -v $T/x --pos sinusoidal|--pos adds positions to the embeddings"; do
    read -ra argv <<<"${bad%%|*}"
    run "${argv[@]}"
    expect_code 2 "${bad%%|*}"
    expect_err_has "${bad#*|}" "${bad%%|*}"
done
