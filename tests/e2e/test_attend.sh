# attn attend: options, error classes and exit codes, stdin, notes on stderr.
ex="$ROOT/data/examples"
x="$ex/simple/x.txt"

printf '1 0 2\n0 1 1\n' > "$T/q23"
printf '1 0 2 1\n0 1 1 1\n' > "$T/q24"
printf '1 0\n0 1\n1 1\n' > "$T/k32"

# usage errors (exit 2), nothing on stdout
run attend -x "$x" -q "$x" -k "$x" -v "$x"
expect_code 2 "mixing -x and -q/-k/-v"
expect_err_has "use one" "mixing forms says so"
expect_out_empty "no output on usage error"
run attend -q "$x" -k "$x"
expect_code 2 "missing -v"
expect_err_has "-v FILE is missing" "missing -v named"
run attend
expect_code 2 "no input at all"
run attend -x "$x" --scale fast
expect_code 2 "--scale fast"
expect_err_has "invalid --scale 'fast'" "--scale message"
run attend -x "$x" --show context,bogus
expect_code 2 "--show bogus"
run attend -x "$x" --masked-rows maybe
expect_code 2 "--masked-rows maybe"
run attend -x "$x" --normalize l2
expect_code 2 "--normalize l2"
run attend -x "$x" --causal=diagonal
expect_code 2 "--causal=diagonal"
run attend -x "$x" --no-such-option
expect_code 2 "unknown option"
run attend -x - -k - 
expect_code 2 "two inputs from stdin"
run attend -x "$x" --wq "$T/q23" --wk "$T/q23" --wv "$T/q23" --arch no-such-arch
expect_code 2 "unknown --arch"

# bad input (exit 3)
run attend -q "$T/q23" -k "$T/q24" -v "$T/q24"
expect_code 3 "d_k mismatch"
expect_err_has "-k has d_k=4 but -q has d_k=3" "d_k mismatch message"
run attend -q "$T/q23" -k "$T/q23" -v "$T/k32"
expect_code 3 "Tk mismatch between -k and -v"
printf '1 0\n0 1\n' > "$T/w22"
run attend -x "$x" --wq "$T/w22"
expect_code 3 "projection rows != D"
expect_err_has "--wq is 2x2 but -x has D=3" "projection mismatch message"
run attend -x "$x" --wq "$ex/trainable/wq.txt" --wk "$T/q23"
expect_code 3 "W_q and W_k column counts differ"
run attend -x "$T/does-not-exist"
expect_code 3 "missing file"
printf '1 2\nnan 3\n' > "$T/nan"
run attend -x "$T/nan"
expect_code 3 "NaN in X"
expect_err_has "$T/nan:2" "NaN position named"
printf '1 1\n1 1\n' > "$T/mask22"
run attend -x "$x" --mask "$T/mask22"
expect_code 3 "mask of the wrong shape"
expect_err_has "--mask is 2x2 but the scores are 6x6" "mask shape message"
printf 'a\nb\n' > "$T/labels2"
run attend -x "$x" --labels "$T/labels2"
expect_code 3 "label count mismatch"

# runtime failures (exit 1): zero row sum, overflow; no partial output
printf '1 0\n' > "$T/zq"
printf '1 0\n-1 0\n' > "$T/zk"
run attend -q "$T/zq" -k "$T/zk" -v "$T/zk" --scale none --normalize sum --show weights
expect_code 1 "zero row sum under --normalize sum"
expect_err_has "sums to zero" "zero sum message"
expect_out_empty "no partial output on a runtime failure"
# --normalize sum of scores (1, 0) and (1, -1): the second row's quotients (2, -1) are no weights
printf '1 0\n0 1\n' > "$T/nq"
printf '1 -1\n0.5 0.5\n' > "$T/nk"
printf '0.666666667 0.333333333\n2 -1\n' > "$T/nw"
run attend -q "$T/nq" -k "$T/nk" -v "$T/nk" --scale none --normalize sum --show weights
expect_code 0 "--normalize sum with a negative score"
expect_close "$T/nw" "$T/out" 1e-7 "--normalize sum: scores over their sum"
expect_err_has "note: 1 row has negative entries after --normalize sum: not weights" "negative row counted"
run attend -q "$T/nq" -k "$T/nk" -v "$T/nk" --scale none --normalize sum --show weights-mean
expect_code 0 "--normalize sum, --show weights-mean"
expect_err_has "note: 1 row has negative entries after --normalize sum" "negative row of the head mean counted"
printf '1e30 1e30\n' > "$T/huge"
run attend -x "$T/huge" --show weights,context
expect_code 1 "overflowing scores are an error, not NaN"
expect_out_empty "no output when scores overflow"

# standard input
run_in "$x" attend -x - --scale none --format csv
echo "$OUT" > "$T/got"
expect_close "$ex/simple/context.txt" "$T/got" 1e-6 "-x - reads standard input"

# mask, bias, causal notes
printf '1 1 0\n0 0 0\n' > "$T/mask23"
printf '1 0\n0 1\n' > "$T/q22"
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --mask "$T/mask23" --show weights --format csv
expect_code 0 "mask applies"
expect_err_has "1 query row had every key masked" "fully masked row reported"
if [ "$(sed -n 2p "$T/out")" = "0,0,0" ]; then pass; else fail "zero policy gives a zero row: $(sed -n 2p "$T/out")"; fi
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --mask "$T/mask23" --masked-rows uniform --format csv
if sed -n 2p "$T/out" | grep -qE '^0\.66666[67][0-9]*,0\.66666[67][0-9]*$'; then pass; else fail "uniform policy gives mean of V: $(sed -n 2p "$T/out")"; fi
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --mask "$T/mask23" --masked-rows nan --format csv
expect_code 0 "nan policy is allowed"
if sed -n 2p "$T/out" | grep -qi 'nan'; then pass; else fail "nan policy gives NaN"; fi
printf -- '0 -inf 0\n-inf 0 0\n' > "$T/bias23"
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --bias "$T/bias23" --show weights --format csv
expect_code 0 "-inf allowed in --bias"
if sed -n 1p "$T/out" | grep -qE '^[0-9.e-]+,0,[0-9.e-]+$'; then pass; else fail "-inf bias masks its entry: $(sed -n 1p "$T/out")"; fi
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --mask "$T/bias23"
expect_code 3 "-inf not allowed in --mask"
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --causal --show weights --format csv
expect_err_has "aligned top-left" "causal alignment note when Tq != Tk"
run attend -q "$T/q22" -k "$T/k32" -v "$T/k32" --causal=bottom-right --show weights --format csv
expect_err_has "aligned bottom-right" "bottom-right alignment note"
# bottom-right with Tq=2, Tk=3: query 0 sees keys 0..1, query 1 sees all
if sed -n 1p "$T/out" | grep -qE ',0$'; then pass; else fail "bottom-right masks key 2 for query 0: $(sed -n 1p "$T/out")"; fi

# shown matrices, order and formats
run attend -x "$x" --show weights,scores --format csv
expect_out_has "# weights 6x6" "csv block header for weights"
expect_out_has "# scores 6x6" "csv block header for scores"
if [ "$(grep -n '^# ' "$T/out" | head -1)" = "1:# weights 6x6" ]; then pass; else fail "--show order kept"; fi
run attend -x "$x" --show variance --format json
for key in d_k scale q_mean q_var k_mean k_var scores_var scaled_var expected_scores_var expected_scaled_var \
           max_weight_mean entropy_mean entropy_uniform_mean saturated_rows masked_rows; do
    expect_out_has "\"$key\"" "variance json has $key"
done
run attend -x "$x" --scale none --show weights --format csv
echo "$OUT" > "$T/w"
"$ATTN" attend -x "$x" --scale none --show scaled --format csv | "$ATTN" softmax - --format csv > "$T/piped" 2>"$T/err"
expect_close "$T/w" "$T/piped" 1e-6 "attend --show scaled | attn softmax - equals the weights"
run attend --help
expect_code 0 "--help"
for opt in -x --wq --wk --wv -q -k -v --labels --scale --causal --mask --bias --masked-rows --normalize --show \
           --format --digits --output --arch --threads --heatmap --svg --svg-of; do
    expect_out_has -- "$opt" "attend --help documents $opt"
done

# pictures: terminal heatmap and SVG
m="$ex/masking"
run attend -x "$m/x.txt" --causal --labels "$m/labels.txt" --heatmap
expect_code 0 "--heatmap alone"
expect_out_has "××" "masked cells drawn as ××"
expect_out_has "country." "labels on the heatmap"
if grep -q $'\e\[' "$T/out"; then fail "no colour when stdout is not a terminal"; else pass; fi
if grep -q '^context' "$T/out"; then fail "--heatmap alone prints no matrices"; else pass; fi
run attend -x "$m/x.txt" --svg ""
expect_code 2 "attend --svg '' is refused (it would mix the SVG into the matrices on stdout)"
expect_out_empty "attend --svg '': no output"
# `--svg -` alone: the SVG is the whole of standard output (a pipeline's picture), nothing else.
run attend -x "$m/x.txt" --svg -
expect_code 0 "attend --svg - alone"
if [ "$(head -c 5 "$T/out")" = "<?xml" ] && xmllint --noout "$T/out" 2>/dev/null; then pass; else fail "attend --svg - alone: stdout is not one well-formed SVG"; fi
if grep -q '^context' "$T/out"; then fail "attend --svg - alone: matrices printed with the SVG"; else pass; fi
run attend -x "$m/x.txt" --svg - --show weights
expect_code 2 "attend --svg - with --show and the matrices on stdout is refused"
expect_out_empty "attend --svg - --show weights: no output"
run attend -x "$m/x.txt" --svg - --format csv
expect_code 2 "attend --svg - --format csv: nothing to format"
expect_err_has "add --show and -o" "attend --svg - --format: what to do"
run attend -x "$m/x.txt" --svg - -o "$T/ctx.csv"
expect_code 0 "attend --svg - with the matrices sent to -o"
expect_out_has "<svg" "the SVG alone on stdout"
run attend -x "$m/x.txt" --causal --heatmap -o "$T/heat-only.txt"
expect_code 2 "--heatmap alone with -o is refused (nothing would be written to the file)"
if [ -e "$T/heat-only.txt" ]; then fail "--heatmap alone with -o creates no file"; else pass; fi
run attend -x "$m/x.txt" --causal --heatmap --show context --format csv
expect_code 2 "--heatmap with csv on stdout is refused"
run attend -x "$m/x.txt" --causal --heatmap --show context --format pretty
expect_out_has "context (8x4):" "--heatmap with --show keeps the matrices"
expect_out_has "××" "and draws the heatmap after them"
run attend -x "$m/x.txt" --causal --heatmap --show weights -o "$T/w.csv"
expect_code 0 "--heatmap with -o"
expect_out_has "××" "heatmap on stdout, matrices in the file"
expect_close "$m/weights_causal.txt" "$T/w.csv" 1e-6 "-o file holds the weights"
run attend -x "$m/x.txt" --causal --labels "$m/labels.txt" --svg "$T/w.svg"
expect_code 0 "--svg"
cells=$(grep -o 'class="cell' "$T/w.svg" | wc -l)
if [ "$cells" -eq 64 ]; then pass; else fail "svg has 64 cells, found $cells"; fi
if [ "$(wc -l < "$T/out")" -eq 8 ]; then pass; else fail "--svg still prints the 8 context rows"; fi
if grep -q 'causal (top-left)' "$T/w.svg"; then pass; else fail "svg title names the causal mask"; fi
if grep -q 'hiking' "$T/w.svg"; then pass; else fail "svg carries the labels"; fi
if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout "$T/w.svg" 2>/dev/null; then pass; else fail "svg is well-formed XML"; fi
fi
run attend -x "$m/x.txt" --svg "$T/s.svg" --svg-of scores
expect_code 0 "--svg-of scores"
if grep -q 'scores' "$T/s.svg"; then pass; else fail "svg-of scores titled scores"; fi
run attend -x "$m/x.txt" --svg "$T/s.svg" --svg-of context
expect_code 2 "--svg-of context is refused"
run attend -x "$m/x.txt" --svg-of scores
expect_code 2 "--svg-of without --svg is refused"

# options are taken once, lists have no empty items, -o needs a path
run attend -x "$x" -x "$x"
expect_code 2 "an input option given twice"
expect_err_has "-x given more than once" "repeated option named"
# a flag given twice is that flag, also one with an optional value given twice alike
run attend -x "$x" --causal --causal --show weights --format csv
expect_code 0 "--causal --causal"
if [ "$OUT" = "$("$ATTN" attend -x "$x" --causal --show weights --format csv)" ]; then pass; else fail "--causal --causal is not --causal"; fi
# a short option's value attached, GNU style: -oFILE is -o FILE; the value of --title is left alone
run attend -x "$x" --show weights "-o$T/attached.csv"
expect_code 0 "-oFILE"
"$ATTN" attend -x "$x" --show weights -o "$T/separate.csv"
if cmp -s "$T/attached.csv" "$T/separate.csv"; then pass; else fail "-o$T/attached.csv is not -o FILE"; fi
run attend "-x$x" --show weights --format csv
expect_code 0 "-xFILE"
# a UTF-8 byte-order mark before --lengths' numbers is skipped, as before a matrix
printf '\xef\xbb\xbf3\n' >"$T/lengths_bom.txt"
run attend -x "$x" --lengths "$T/lengths_bom.txt" --show weights --format csv
expect_code 0 "--lengths FILE with a byte-order mark"
if [ "$OUT" = "$("$ATTN" attend -x "$x" --lengths 3 --show weights --format csv)" ]; then pass; else fail "--lengths with a BOM: not --lengths 3"; fi
run attend -x "$x" --causal=bottom-right --causal
expect_code 2 "--causal twice with two alignments"
expect_err_has "--causal given more than once" "--causal twice with two alignments: message"
run attend -x "$x" --causal=
expect_code 2 "--causal= with an empty alignment"
run attend -x "$x" --show weights,
expect_code 2 "--show with a trailing comma"
run attend -x "$x" -o ''
expect_code 2 "-o with an empty path"
run attend -x "$x" --heatmap --format json
expect_code 2 "--heatmap alone with --format"
# a large SVG heatmap is max-pooled: 513x513 weights in 5x5 blocks = 103x103 cells
awk 'BEGIN { for (i = 0; i < 513; i++) print "1 0" }' > "$T/q513"
run attend -q "$T/q513" -k "$T/q513" -v "$T/q513" --svg "$T/big.svg"
expect_code 0 "--svg with more than 512x512 cells"
[ "$(grep -c '<rect class="cell' "$T/big.svg")" -eq $((103 * 103)) ] && pass || fail "513x513 pooled to 103x103 cells"
grep -qF 'max-pooled from 513×513, blocks of 5×5' "$T/big.svg" && pass || fail "pooling named in the title"
