# Worked examples through the real binary, compared with the PyTorch values stored in
# data/examples/ (copied from ../shared/worked-examples.md, or generated as its README says).
ex="$ROOT/data/examples"

run example --check
expect_code 0 "example --check passes"
expect_out_has "all ok: 15 examples" "example --check covers every example"

run example
expect_code 0 "example lists"
for name in simple trainable exact-match scaling saturation peaky causal-average variance masking rope-relative sliding-window; do
    expect_out_has "$name" "example list names $name"
done

run example no-such-example
expect_code 2 "unknown example is a usage error"

# simple: Q = K = V = X, no scaling
for what in scores weights context; do
    run attend -x "$ex/simple/x.txt" --scale none --show $what --format csv
    echo "$OUT" > "$T/got"
    expect_close "$ex/simple/$what.txt" "$T/got" 1e-6 "simple $what"
done
run attend -q "$ex/simple/x3.txt" -k "$ex/simple/x.txt" -v "$ex/simple/x.txt" --scale none --normalize sum --show weights --format csv
echo "$OUT" > "$T/got"
expect_close "$ex/simple/weights_sum_row3.txt" "$T/got" 1e-6 "simple row 3 normalized by its sum"
run attend -x "$ex/simple/x.txt" --scale none --format pretty
expect_out_has "0.5876" "simple context row 3 as the tutorial prints it"
if grep -qE '0\.5876 +0\.4533 +0\.3425' "$T/out"; then pass; else fail "simple context row 3 reads 0.5876 0.4533 0.3425"; fi

# trainable: projections from W_q, W_k, W_v (torch.manual_seed(123))
tr=(-x "$ex/trainable/x.txt" --wq "$ex/trainable/wq.txt" --wk "$ex/trainable/wk.txt" --wv "$ex/trainable/wv.txt")
for what in queries keys values scores weights context; do
    run attend "${tr[@]}" --show $what --format csv
    echo "$OUT" > "$T/got"
    expect_close "$ex/trainable/$what.txt" "$T/got" 1e-6 "trainable $what"
done
for what in weights context; do
    run attend "${tr[@]}" --causal --show $what --format csv
    echo "$OUT" > "$T/got"
    expect_close "$ex/trainable/${what}_causal.txt" "$T/got" 1e-6 "trainable causal $what"
done
run attend "${tr[@]}" --format pretty
if grep -qE '0\.2618 +0\.4683' "$T/out"; then pass; else fail "trainable context row 3 reads 0.2618 0.4683"; fi

# exact-match: cross-attention with one query
em=(-q "$ex/exact-match/q.txt" -k "$ex/exact-match/k.txt" -v "$ex/exact-match/v.txt")
for s in none auto; do
    for what in weights context; do
        run attend "${em[@]}" --scale $s --show $what --format csv
        echo "$OUT" > "$T/got"
        expect_close "$ex/exact-match/${what}_$s.txt" "$T/got" 1e-6 "exact-match $what scale=$s"
    done
done

# causal-average: causal attention over all-zero scores is the running mean
run attend -q "$ex/causal-average/zeros.txt" -k "$ex/causal-average/zeros.txt" -v "$ex/causal-average/x0.txt" --causal --format csv
echo "$OUT" > "$T/got"
expect_close "$ex/causal-average/xbow.txt" "$T/got" 1e-6 "causal-average xbow"

# masking: causal weights; the last token's causal weights equal its unmasked weights
run attend -x "$ex/masking/x.txt" --causal --show weights --format csv
echo "$OUT" > "$T/got"
expect_close "$ex/masking/weights_causal.txt" "$T/got" 1e-6 "masking causal weights"
tail -n 1 "$T/got" > "$T/last_causal"
run attend -x "$ex/masking/x.txt" --show weights --format csv
echo "$OUT" | tail -n 1 > "$T/last_plain"
expect_close "$T/last_plain" "$T/last_causal" 1e-7 "masking: last row causal == unmasked"
run attend -x "$ex/masking/x.txt" --causal --show weights --labels "$ex/masking/labels.txt" --format pretty
expect_out_has "hiking" "labels appear in pretty output"
expect_out_has "country." "last label appears in pretty output"

# generated inputs: causal-average draws x with torch.manual_seed(42); variance with seed 92
run example causal-average
expect_code 0 "example causal-average"
expect_out_has "attn random --seed 42 --shape 4,8,2" "causal-average says how its input is drawn"
expect_out_has "context vs PyTorch 1.13 (xbow.txt): max diff" "causal-average compares xbow"
run example variance
expect_code 0 "example variance"
if grep -qE '512\.0118 +1\.0000' "$T/out"; then pass; else fail "variance example prints 512.0118 and 1.0000"; fi
run example masking
expect_code 0 "example masking"
expect_out_has "weights as a heatmap" "masking example draws a heatmap"
expect_out_has "××" "masked cells visible in the heatmap"
expect_out_has "through" "labels in the masking example"

# sliding-window: Mistral's W = 3 band. The heatmap marks the cells left of the band masked too:
# row "bear" (query 6) sees keys 4..6, so its first four cells and its last are masked.
run example sliding-window
expect_code 0 "example sliding-window"
expect_out_has "--causal --window 2" "the sliding-window example's command is --causal --window W-1"
if grep -qE '^bear +(××){4}[^×]+(××)$' "$T/out"; then pass; else fail "sliding-window heatmap: row bear is not masked left and right of its band"; fi
rm -rf "$T/sw"
run example sliding-window --export "$T/sw"
(cd "$T/sw" && "$ATTN" attend -x x.txt --causal --window 2 --show weights --format csv) >"$T/sw_w" 2>"$T/err"
expect_close "$ex/sliding-window/weights.txt" "$T/sw_w" 1e-6 "sliding-window: the command on the exported files gives PyTorch's weights"

# The multi-head examples: every intermediate per head, each compared with PyTorch.
run example multihead
expect_code 0 "attn example multihead"
expect_out_has "--in-proj in_proj_weight.txt" "the command names --in-proj"
expect_out_has "--heads 2" "the command names --heads"
n=$(grep -c "vs PyTorch 1.13.*(ok)" "$T/out"); [ "$n" -eq 12 ] && pass || fail "multihead: $n comparisons ok, expected 12"
run example grouped-query
expect_code 0 "attn example grouped-query"
expect_out_has "--kv-heads 2" "the command names --kv-heads"
n=$(grep -c "vs PyTorch 1.13.*(ok)" "$T/out"); [ "$n" -eq 6 ] && pass || fail "grouped-query: $n comparisons ok, expected 6"

# --format and --digits shape how an example is shown; the list and --check ignored them.
run example simple --check --format json
expect_code 2 "example --check --format json is refused"
expect_err_has "not to --check" "example --check --format: the message"
run example --digits 3
expect_code 2 "the list with --digits is refused"

# Option values of example work as written (from the audit of the issue-2 contract).
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

# ---- nanoGPT's single-head cell without Python: attn random draws x and the three nn.Linear
# weights as torch does, attend computes the head; batch 0 must be what torch printed
# (data/examples/nanogpt-head, made by data/examples/generate_nanogpt.py).
(cd "$T" && "$ATTN" random --seed 1337 --shape 4,8,32 --linear-no-bias 32,16 --linear-no-bias 32,16 \
     --linear-no-bias 32,16 --format npy -o head)
run attend -x "$T/head/draw0.npy" --wk "$T/head/draw1.npy" --wq "$T/head/draw2.npy" --wv "$T/head/draw3.npy" \
    --linear-layout --causal --scale none --show weights --batch-items 0:1 --format csv
expect_code 0 "nanogpt-head pipeline: weights"
grep -v '^#' "$T/out" | grep -v '^$' >"$T/w0"
expect_close "$ROOT/data/examples/nanogpt-head/weights.txt" "$T/w0" 1e-6 "nanogpt-head pipeline: wei[0] as torch computed it"
run attend -x "$T/head/draw0.npy" --wk "$T/head/draw1.npy" --wq "$T/head/draw2.npy" --wv "$T/head/draw3.npy" \
    --linear-layout --causal --scale none --show context --batch-items 0:1 --format csv
grep -v '^#' "$T/out" | grep -v '^$' >"$T/c0"
expect_close "$ROOT/data/examples/nanogpt-head/context.txt" "$T/c0" 1e-6 "nanogpt-head pipeline: out[0] as torch computed it"
# d2l's additive attention: its command line, run from the exported files, gives PyTorch's values.
rm -rf "$T/additive"
run example additive --export "$T/additive"
expect_code 0 "example additive --export"
cmd=$("$ATTN" example additive | sed -n 's/^\$ attn //p' | head -1)
(cd "$T/additive" && eval "\"$ATTN\" ${cmd/--show weights,context/--show weights --format csv}") >"$T/add_w" 2>"$T/err"
if [ "$(grep -v '^#' "$T/add_w" | grep -c .)" -eq 2 ] && grep -q '^0.5,0.5,0,0,0,0,0,0,0,0$' "$T/add_w"; then pass
else fail "example additive: its command did not give d2l's weights: $(cat "$T/add_w" "$T/err")"; fi
