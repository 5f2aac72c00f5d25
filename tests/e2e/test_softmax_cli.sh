# attn softmax through the real binary. Expected values: the worked examples
# (../shared/worked-examples.md, sections 4-6) and float64 numpy results quoted in comments.

# ---- worked example "scaling": logits [10, 20, 30], unscaled and scaled by 1/sqrt(512) ----
printf '10 20 30\n' > "$T/logits"
printf '0.00000000 0.00004540 0.99995458\n' > "$T/expect"
run softmax "$T/logits" --format csv; expect_code 0 "scaling: unscaled"
expect_close "$T/expect" "$T/out" 1e-6 "scaling: softmax([10,20,30])"
printf '0.20096439 0.31264538 0.48639023\n' > "$T/expect"
run softmax "$T/logits" --scale 0.044194173824159216 --format csv; expect_code 0 "scaling: scaled"
expect_close "$T/expect" "$T/out" 1e-6 "scaling: softmax([10,20,30]/sqrt(512))"

# ---- worked example "saturation": softmax([8,0,0]) and softmax([1,0,0]) (= [8,0,0] / sqrt(64)) ----
printf '8 0 0\n1 0 0\n' > "$T/logits"
printf '0.99932957 0.00033524 0.00033524\n0.57611692 0.21194157 0.21194157\n' > "$T/expect"
run softmax "$T/logits"; expect_code 0 "saturation"
expect_close "$T/expect" "$T/out" 1e-6 "saturation: both rows"
printf '[8, 0, 0]\n' > "$T/logits"
printf '0.57611692 0.21194157 0.21194157\n' > "$T/expect"
run softmax "$T/logits" --scale 0.125; expect_code 0 "saturation: scaled by 1/sqrt(64)"
expect_close "$T/expect" "$T/out" 1e-6 "saturation: [8,0,0] scaled by 1/8"

# ---- worked example "peaky": logits and logits x8 ----
printf 'tensor([0.1, -0.2, 0.3, -0.2, 0.5])\n' > "$T/logits"
printf '0.19249782 0.14260590 0.23511738 0.14260590 0.28717300\n' > "$T/expect"
run softmax "$T/logits"; expect_code 0 "peaky"
expect_close "$T/expect" "$T/out" 1e-6 "peaky: softmax"
printf '0.03260834 0.00295816 0.16151018 0.00295816 0.79996514\n' > "$T/expect"
run softmax "$T/logits" --scale 8; expect_code 0 "peaky x8"
expect_close "$T/expect" "$T/out" 1e-6 "peaky: softmax of x8"

# ---- stability and masking (numpy float64: 1/(1+e) = 0.26894142) ----
printf '1000 1001\n-1000 -1000\n' > "$T/logits"
printf '0.26894142 0.73105858\n0.5 0.5\n' > "$T/expect"
run softmax "$T/logits"; expect_code 0 "large logits"
expect_close "$T/expect" "$T/out" 1e-6 "softmax of [1000,1001] and [-1000,-1000]"
printf '0 -inf 0\n-inf 2 -inf\n' > "$T/logits"
printf '0.5 0 0.5\n0 1 0\n' > "$T/expect"
run softmax "$T/logits"; expect_code 0 "-inf entries"
expect_close "$T/expect" "$T/out" 1e-6 "-inf entries get weight 0"
expect_out_has "0.5,0,0.5" "masked weights are exactly 0"

# --causal: constant scores give the running mean weights 1, 1/2, 1/3, 1/4
printf '0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' > "$T/zeros"
printf '1 0 0 0\n0.5 0.5 0 0\n0.33333333 0.33333333 0.33333333 0\n0.25 0.25 0.25 0.25\n' > "$T/expect"
run softmax "$T/zeros" --causal; expect_code 0 "causal"
expect_close "$T/expect" "$T/out" 1e-6 "causal rows average the visible columns"

# fully masked rows, all three policies, with the count on stderr
printf -- '-inf -inf\n0 0\n-inf -inf\n' > "$T/masked"
run softmax "$T/masked"; expect_code 0 "masked rows: zero"
if [ "$OUT" = $'0,0\n0.5,0.5\n0,0' ]; then pass; else fail "masked rows zero: got $OUT"; fi
expect_err_has "attn: note: 2 fully masked rows (every entry -inf) got zero weights" "masked rows reported"
run softmax "$T/masked" --masked-rows nan; expect_code 0 "masked rows: nan"
if [ "$OUT" = $'nan,nan\n0.5,0.5\nnan,nan' ]; then pass; else fail "masked rows nan: got $OUT"; fi
expect_err_has "got NaN weights" "masked rows nan reported"
run softmax "$T/masked" --masked-rows uniform; expect_code 0 "masked rows: uniform"
if [ "$OUT" = $'0.5,0.5\n0.5,0.5\n0.5,0.5' ]; then pass; else fail "masked rows uniform: got $OUT"; fi
run softmax "$T/logits" --masked-rows zero; expect_code 0 "no masked rows"
if [ ! -s "$T/err" ]; then pass; else fail "no note expected without masked rows: $ERR"; fi

# --normalize sum (the tutorials' naive normalization); a zero row sum is a runtime failure
printf '1 3\n2 2\n' > "$T/pos"
printf '0.25 0.75\n0.5 0.5\n' > "$T/expect"
run softmax "$T/pos" --normalize sum; expect_code 0 "normalize sum"
expect_close "$T/expect" "$T/out" 1e-7 "normalize sum"
if [ ! -s "$T/err" ]; then pass; else fail "normalize sum of positive rows: no note expected: $(cat "$T/err")"; fi
# Negative entries left by the sum are no weights: the rows are counted on stderr, values kept.
printf '1 -2 3\n1 1 2\n-1 -3 0\n' > "$T/mixed"
printf '0.5 -1 1.5\n0.25 0.25 0.5\n0.25 0.75 0\n' > "$T/expect_mixed"
run softmax "$T/mixed" --normalize sum; expect_code 0 "normalize sum of rows with negative entries"
expect_close "$T/expect_mixed" "$T/out" 1e-7 "normalize sum keeps negative quotients"
expect_err_has "note: 1 row has negative entries after --normalize sum: not weights" "negative rows counted"
printf '1 -1\n' > "$T/zero_sum"
run softmax "$T/zero_sum" --normalize sum; expect_code 1 "zero row sum"
expect_err_has "sums to zero" "zero row sum message"
expect_out_empty "zero row sum: no partial output"

# --scale combined with a pipeline from attn matmul (csv) into standard input
printf '1 0\n0 1\n1 1\n' > "$T/A"; printf '0 1 2\n2 1 0\n' > "$T/B"
# numpy float64: softmax of [[0,1,2],[2,1,0],[2,2,2]]
printf '0.09003057 0.24472847 0.66524096\n0.66524096 0.24472847 0.09003057\n0.33333333 0.33333333 0.33333333\n' > "$T/expect"
"$ATTN" matmul "$T/A" "$T/B" --format csv | "$ATTN" softmax - > "$T/out" 2> "$T/err"
CODE=$?; expect_code 0 "matmul | softmax -"
expect_close "$T/expect" "$T/out" 1e-6 "matmul | softmax -"
# no FILE: standard input when it is not a terminal
run_in "$T/pos" softmax --format tsv; expect_code 0 "softmax reads stdin without FILE"
printf '0.11920292 0.88079708\n0.5 0.5\n' > "$T/expect"
expect_close "$T/expect" "$T/out" 1e-6 "softmax of stdin"
# pretty output
run softmax "$T/pos" --format pretty --digits 3
if [ "$OUT" = $'softmax (2x2):\n  0.119  0.881\n  0.500  0.500' ]; then pass; else fail "pretty output: got $OUT"; fi
# scaled logits that overflow float32
printf '1e38 1\n' > "$T/big"
run softmax "$T/big" --scale 10; expect_code 1 "scaled logit overflow"
expect_err_has "row 0, column 0 (0-based): the scaled logit overflows float32" "overflow message"

# ---- usage errors (exit 2) ----
run softmax "$T/pos" --scale fast; expect_code 2 "--scale fast"
expect_err_has "attn: invalid --scale 'fast': expected a finite number" "--scale fast message"
run softmax "$T/pos" --normalize max; expect_code 2 "--normalize max"
expect_err_has "invalid --normalize 'max': expected softmax or sum" "--normalize message"
run softmax "$T/pos" --masked-rows drop; expect_code 2 "--masked-rows drop"
expect_err_has "invalid --masked-rows 'drop': expected zero, nan or uniform" "--masked-rows message"
run softmax "$T/pos" --format xml; expect_code 2 "--format xml"
run softmax "$T/pos" --digits 40; expect_code 2 "--digits 40"
run softmax "$T/pos" --frobnicate; expect_code 2 "unknown option"
run softmax "$T/pos" "$T/pos"; expect_code 2 "two inputs"
expect_out_empty "usage error: no output"

# ---- input errors (exit 3) with GNU-style positions ----
printf '1 2 3\n4 abc 6\n' > "$T/bad"
run softmax "$T/bad"; expect_code 3 "not a number"
expect_err_has "attn: $T/bad:2:3: expected a number, found 'abc'" "not a number message"
expect_out_empty "bad input: no partial output"
printf '1 2 3\n4 5 6\n7 8 9\n1 2\n' > "$T/ragged"
run softmax "$T/ragged"; expect_code 3 "ragged rows"
expect_err_has "attn: $T/ragged:4: row has 2 values, expected 3" "ragged message"
printf '1 nan\n' | "$ATTN" softmax - > "$T/out" 2> "$T/err"; CODE=$?
expect_code 3 "nan in input"
expect_err_has "attn: <stdin>:1:3: non-finite value 'nan' is not allowed here (only -inf is)" "nan message"
run softmax "$T/does-not-exist"; expect_code 3 "missing file"
expect_err_has "attn: $T/does-not-exist: No such file or directory" "missing file message"
run softmax "$ROOT/data/fixtures/pasted_torch_summarised.txt"; expect_code 3 "summarised tensor"
expect_err_has "marks a summarised print: the data is not there" "summarised message"
run softmax "$ROOT/data/fixtures/batched_f4.npy" --format npy -o "$T/batched.npy"; expect_code 0 "batched npy: each slice"
run softmax "$T/batched.npy" --format csv
expect_out_has "# softmax [1] 2x3" "batched npy: the shape (2, 2, 3) is kept"

# ---- --help documents every option ----
run softmax --help; expect_code 0 "softmax --help"
for opt in --scale --causal --normalize --masked-rows --format --digits --output --arch --threads "[FILE|-]"; do
    expect_out_has "$opt" "softmax --help mentions $opt"
done

# ---- on a terminal (through script(1), when available): missing input, default pretty, npy refused ----
if command -v script > /dev/null 2>&1; then
    script -qec "'$ATTN' softmax; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
    if grep -q "attn: missing input: give FILE, or '-' for standard input" "$T/tty" && grep -q "rc=2" "$T/tty"; then pass
    else fail "softmax without input on a terminal: $(cat "$T/tty")"; fi
    script -qec "'$ATTN' softmax '$ROOT/data/fixtures/vector_f4.npy'; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
    if grep -q "softmax (5,):" "$T/tty" && grep -q "rc=0" "$T/tty"; then pass; else fail "pretty is the terminal default: $(cat "$T/tty")"; fi
    script -qec "'$ATTN' softmax '$ROOT/data/fixtures/vector_f4.npy' -o -; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
    if grep -q "softmax (5,):" "$T/tty" && grep -q "rc=0" "$T/tty"; then pass; else fail "-o - on a terminal: not pretty: $(cat "$T/tty")"; fi
    script -qec "'$ATTN' softmax '$ROOT/data/fixtures/vector_f4.npy' --format npy; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
    if grep -q "refusing to write it to a terminal" "$T/tty" && grep -q "rc=2" "$T/tty"; then pass; else fail "npy to a terminal: $(cat "$T/tty")"; fi
    # A path naming the terminal is the terminal: pretty, and npy refused (they were csv and bytes).
    script -qec "'$ATTN' softmax '$ROOT/data/fixtures/vector_f4.npy' -o /dev/stdout; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
    if grep -q "softmax (5,):" "$T/tty" && grep -q "rc=0" "$T/tty"; then pass; else fail "-o /dev/stdout on a terminal: not pretty: $(cat "$T/tty")"; fi
    script -qec "'$ATTN' softmax '$ROOT/data/fixtures/vector_f4.npy' -o /dev/stdout --format npy; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
    if grep -q "refusing to write it to a terminal" "$T/tty" && grep -q "rc=2" "$T/tty"; then pass; else fail "npy to /dev/stdout on a terminal: $(cat "$T/tty")"; fi
fi

# ---- --normalize sum whose quotient overflows float32: a numeric failure, not 'inf' ----
# row [3e38, -3e38, 1e-40] sums to 1e-40 (in float64), so 3e38 / 1e-40 = 3e78 > FLT_MAX
printf '3e38 -3e38 1e-40\n' > "$T/cancel"
run softmax "$T/cancel" --normalize sum; expect_code 1 "sum-normalized weight overflows"
expect_err_has "attn: row 0, column 0 (0-based): the sum-normalized weight overflows float32" "sum overflow message"
expect_out_empty "sum overflow: no output"
# the same with a NaN policy: a fully masked row's requested NaN is not an error
printf -- '-inf -inf\n1 3\n' > "$T/masked"
printf 'nan nan\n0.25 0.75\n' > "$T/expect"
run softmax "$T/masked" --normalize sum --masked-rows nan; expect_code 0 "sum with a NaN masked row"
if [ "$(head -1 "$T/out")" = "nan,nan" ]; then pass; else fail "masked row under nan policy: $OUT"; fi
expect_close "$T/expect" "$T/out" 1e-7 "sum-normalized row [1,3] next to a NaN masked row"

# ---- a boolean flag given a value: --causal=false means no causal mask ----
printf '1 2\n3 4\n' > "$T/m2"
printf '0.26894142 0.73105858\n0.26894142 0.73105858\n' > "$T/expect"   # 1/(1+e), numpy float64
run softmax "$T/m2" --causal=false; expect_code 0 "--causal=false"
expect_close "$T/expect" "$T/out" 1e-7 "--causal=false leaves every column visible"
printf '1 0\n0.26894142 0.73105858\n' > "$T/expect"
run softmax "$T/m2" --causal=true; expect_code 0 "--causal=true"
expect_close "$T/expect" "$T/out" 1e-7 "--causal=true masks j > i"

# ---- N-D: the last axis of each 2-D slice, as torch.softmax(x, dim=-1) ---------------------------
# A (2, 2, 3) tensor in attn's block format: its slices are the worked examples above, so each
# result slice must be theirs (values from float64 numpy, quoted above), and the shape is kept.
printf '# t [0] 2x3\n8 0 0\n1 0 0\n\n# t [1] 2x3\n10 20 30\n0.1 -0.2 0.3\n' > "$T/nd"
printf '0.99932957 0.00033524 0.00033524\n0.57611692 0.21194157 0.21194157\n0.00000000 0.00004540 0.99995458\n0.33758454 0.25008878 0.41232669\n' > "$T/expect"
run softmax "$T/nd" --format csv; expect_code 0 "softmax of a 3-D tensor"
expect_close "$T/expect" "$T/out" 1e-6 "softmax of a 3-D tensor: each slice"
expect_out_has "# softmax [1] 2x3" "softmax of a 3-D tensor: the blocks keep their index"
# --causal in every slice: row 0 of each slice sees column 0 only.
run softmax "$T/nd" --causal --format csv
if [ "$(grep -c '^1,0,0$' "$T/out")" -eq 2 ]; then pass; else fail "softmax --causal of a 3-D tensor: row 0 of each slice is not 1,0,0: $OUT"; fi
# The README's pipeline with heads: attend's scaled logits, softmaxed, are attend's weights.
"$ATTN" random --seed 3 --shape 5,4 >"$T/x5"
"$ATTN" attend -x "$T/x5" --heads 2 --causal --show scaled --format npy -o "$T/scaled.npy"
"$ATTN" attend -x "$T/x5" --heads 2 --causal --show weights --format npy -o "$T/weights.npy"
run softmax "$T/scaled.npy" --format npy -o "$T/soft.npy"; expect_code 0 "softmax of attend --heads 2 --show scaled"
if cmp -s "$T/soft.npy" "$T/weights.npy"; then pass; else fail "softmax of attend's per-head scaled logits is not attend's weights"; fi
run_in "$T/x5" attend -x - --heads 2 --show scaled --format csv
printf '%s\n' "$OUT" >"$T/scaled.csv"
run_in "$T/scaled.csv" softmax -; expect_code 0 "attend --heads 2 --show scaled | attn softmax -"
# 4-D, and the slice named in a failure.
printf '# t [0, 0] 1x2\n1 2\n\n# t [0, 1] 1x2\n3 4\n\n# t [1, 0] 1x2\n5 6\n\n# t [1, 1] 1x2\n1 -1\n' > "$T/nd4"
run softmax "$T/nd4" --format csv; expect_code 0 "softmax of a 4-D tensor"
expect_out_has "# softmax [1, 1] 1x2" "softmax of a 4-D tensor: the blocks keep their index"
run softmax "$T/nd4" --normalize sum
expect_code 1 "softmax --normalize sum of a slice summing to zero"
expect_err_has "[1, 1] row 0 (0-based) sums to zero" "softmax --normalize sum: the slice of the zero sum"

# A 1-D input keeps its shape (n,), as torch.softmax(x, dim=-1) does.
printf '[0, 0]\n' > "$T/v2"
run softmax "$T/v2" --format json
expect_code 0 "softmax of a vector"
if [ "$(tr -d ' \n' <<<"$OUT")" = '{"softmax":[0.5,0.5]}' ]; then pass; else fail "softmax of [0, 0]: $OUT"; fi
run softmax "$ROOT/data/fixtures/vector_f4.npy" --format npy -o "$T/sv.npy"
expect_code 0 "softmax of a 1-D .npy"
if [[ $(head -c 128 "$T/sv.npy" | tr -d '\0') =~ \'shape\':\ \([0-9]+,\) ]]; then pass
else fail "softmax of a 1-D .npy is not 1-D: $(head -c 128 "$T/sv.npy" | tr -d '\0')"; fi
