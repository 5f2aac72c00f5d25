# Multi-head, grouped-query and batched attention through `attn attend`, against the PyTorch
# fixtures in data/mha/ (nn.MultiheadAttention and hand-written GQA/SDPA in torch 1.13, with a
# float64 NumPy cross-check; see data/mha/README.md). Compared with tests/tools/allclose at
# rtol 1e-5 (the issue's bound) and atol 1e-6.

ALLCLOSE=$(dirname "$ATTN")/allclose
MHA=$ROOT/data/mha

# field CASE KEY: the value after "KEY: " in CASE/case.txt (first word).
field() { sed -n "s|^$2: *\([^ ,(]*\).*|\1|p" "$MHA/$1/case.txt" | head -n 1; }

# compare RUN NAME CASE FILE: $T/RUN/NAME.npy against data/mha/CASE/FILE.npy.
compare() {
    local msg
    if [ ! -f "$T/$1/$2.npy" ]; then fail "$1: attn wrote no $2.npy"; return; fi
    if msg=$("$ALLCLOSE" "$T/$1/$2.npy" "$MHA/$3/$4.npy" --rtol 1e-5 --atol 1e-6 2>&1); then pass
    else fail "$1: $2 differs from PyTorch: $msg"; fi
}

# attend_case CASE ARGS...: runs attend with -o $T/CASE in npy; a failure counts once.
attend_case() {
    local c=$1; shift
    rm -rf "${T:?}/$c"
    run attend "$@" --format npy -o "$T/$c"
    if [ "$CODE" -ne 0 ]; then fail "$c: exit $CODE: $ERR"; return 1; fi
    pass
}

if [ ! -x "$ALLCLOSE" ]; then
    fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
else
    # ---- nn.MultiheadAttention: in_proj/out_proj in PyTorch's layout ---------------------
    for dir in "$MHA"/mha_*/; do
        c=$(basename "$dir")
        args=(-x "$dir/x.npy" --in-proj "$dir/in_proj_weight.npy" --in-proj-bias "$dir/in_proj_bias.npy"
              --out-proj "$dir/out_proj_weight.npy" --out-proj-bias "$dir/out_proj_bias.npy"
              --heads "$(field "$c" "heads H")")
        [ -f "$dir/kv.npy" ] && args+=(--kv "$dir/kv.npy")
        [ "$(field "$c" causal)" = yes ] && args+=(--causal)
        [ -f "$dir/lengths.txt" ] && args+=(--lengths "$dir/lengths.txt")
        if attend_case "$c" "${args[@]}" --show output,weights,weights-mean,context; then
            compare "$c" output "$c" output
            compare "$c" weights "$c" weights
            compare "$c" weights-mean "$c" weights_mean
            compare "$c" context "$c" context
        fi
        # The output alone (one npy file; the fused kernel) gives the same numbers.
        mkdir -p "$T/$c.fused"
        run attend "${args[@]}" --show output --format npy -o "$T/$c.fused/output.npy"
        expect_code 0 "$c: --show output alone"
        compare "$c.fused" output "$c" output
    done

    # ---- separate projections, grouped-query and multi-query heads -------------------------
    for c in proj_h2_g2_e8 gqa_h4_g2_e8 gqa_h6_g3_e12 mqa_h8_g1_e16; do
        dir=$MHA/$c
        args=(-x "$dir/x.npy" --wq "$dir/wq.npy" --wk "$dir/wk.npy" --wv "$dir/wv.npy"
              --bq "$dir/bq.npy" --bk "$dir/bk.npy" --bv "$dir/bv.npy" --wo "$dir/wo.npy" --bo "$dir/bo.npy"
              --heads "$(field "$c" "query heads H")" --kv-heads "$(field "$c" "key/value heads G")")
        [ -f "$dir/kv.npy" ] && args+=(--kv "$dir/kv.npy")
        [ "$(field "$c" causal)" = yes ] && args+=(--causal)
        if attend_case "$c" "${args[@]}" --show output,weights,context; then
            compare "$c" output "$c" output
            compare "$c" weights "$c" weights
            compare "$c" context "$c" context
        fi
        # The same heads given as -q/-k/-v (attn's projections per head), W_O applied to them:
        # PyTorch's output.
        if attend_case "$c.heads" "${args[@]}" --show queries,keys,values; then
            h=$T/$c.heads
            if attend_case "$c.qkv" -q "$h/queries.npy" -k "$h/keys.npy" -v "$h/values.npy" \
                    --wo "$dir/wo.npy" --bo "$dir/bo.npy" --show output,context \
                    $([ "$(field "$c" causal)" = yes ] && echo --causal); then
                compare "$c.qkv" output "$c" output
                compare "$c.qkv" context "$c" context
            fi
        fi
    done

    # ---- q/k/v given directly: broadcasting of leading dims, grouped-query ------------------
    for dir in "$MHA"/qkv_*/; do
        c=$(basename "$dir")
        args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy")
        case $(sed -n 's/^causal: *//p' "$dir/case.txt") in
            yes,\ top-left*) args+=(--causal) ;;
            yes,\ bottom-right*) args+=(--causal=bottom-right) ;;
        esac
        if attend_case "$c" "${args[@]}" --show weights,context; then
            compare "$c" weights "$c" weights
            compare "$c" context "$c" context
        fi
    done
fi

# ---- the CLI around it: layouts, masks, errors, text output, variance, pictures -------------
c=mha_self_causal_pad_e8_h2_b3
dir=$MHA/$c
mha_args=(-x "$dir/x.npy" --in-proj "$dir/in_proj_weight.npy" --in-proj-bias "$dir/in_proj_bias.npy"
          --out-proj "$dir/out_proj_weight.npy" --out-proj-bias "$dir/out_proj_bias.npy" --heads 2)

# --lengths as a list is the file's "4 2 1"; --out-proj is --wo read with --linear-layout.
run attend "${mha_args[@]}" --causal --lengths 4,2,1 --show output --format npy -o "$T/list.npy"
expect_code 0 "--lengths as a list"
[ -f "$T/list.npy" ] && [ -x "$ALLCLOSE" ] && { "$ALLCLOSE" "$T/list.npy" "$dir/output.npy" >/dev/null 2>&1 && pass || fail "--lengths 4,2,1 differs from PyTorch"; }
# The lengths as an int64 .npy vector (NumPy's default for np.array([4, 2, 1])): refused before,
# with the raw 0x93 of the magic in the message.
printf '\223NUMPY\001\000v\000{\047descr\047: \047<i8\047, \047fortran_order\047: False, \047shape\047: (3,), }                                                            \012' > "$T/len.npy"
printf '\004\000\000\000\000\000\000\000\002\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000' >> "$T/len.npy"
run attend "${mha_args[@]}" --causal --lengths "$T/len.npy" --show output --format npy -o "$T/len_npy.npy"
expect_code 0 "--lengths as an .npy vector"
if cmp -s "$T/len_npy.npy" "$T/list.npy"; then pass; else fail "--lengths from .npy differs from the list 4,2,1"; fi
run attend -x "$dir/x.npy" --in-proj "$dir/in_proj_weight.npy" --in-proj-bias "$dir/in_proj_bias.npy" --heads 2 \
    --linear-layout --wo "$dir/out_proj_weight.npy" --bo "$dir/out_proj_bias.npy" --causal --lengths 4,2,1 \
    --show output --format npy -o "$T/wo.npy"
expect_code 0 "--linear-layout --wo"
if cmp -s "$T/wo.npy" "$T/list.npy"; then pass; else fail "--linear-layout --wo differs from --out-proj"; fi

# A Tq×Tk lower-triangular --mask broadcast over batch and heads is --causal.
printf '1 0 0 0\n1 1 0 0\n1 1 1 0\n1 1 1 1\n' > "$T/tril4"
run attend "${mha_args[@]}" --mask "$T/tril4" --lengths 4,2,1 --show weights --format npy -o "$T/masked.npy"
expect_code 0 "broadcast --mask"
[ -x "$ALLCLOSE" ] && { "$ALLCLOSE" "$T/masked.npy" "$dir/weights.npy" >/dev/null 2>&1 && pass || fail "broadcast tril --mask differs from PyTorch's causal weights"; }
# A (B, 1, 1, Tk) mask: key padding written as a mask is --lengths.
printf '# [0, 0]\n1 1 1 1\n\n# [1, 0]\n1 1 0 0\n\n# [2, 0]\n1 0 0 0\n' > "$T/pad"
run attend "${mha_args[@]}" --mask "$T/pad" --causal --show weights --format npy -o "$T/pad.npy"
expect_code 0 "(B,1,1,Tk) --mask"
[ -x "$ALLCLOSE" ] && { "$ALLCLOSE" "$T/pad.npy" "$dir/weights.npy" >/dev/null 2>&1 && pass || fail "padding --mask differs from PyTorch's key_padding_mask"; }

# --linear-layout on --wq/--wk/--wv: transposed copies of a fixture's weights (A·Bᵀ with A = I).
g=$MHA/proj_h2_g2_e8
printf '1 0 0 0 0 0 0 0\n0 1 0 0 0 0 0 0\n0 0 1 0 0 0 0 0\n0 0 0 1 0 0 0 0\n0 0 0 0 1 0 0 0\n0 0 0 0 0 1 0 0\n0 0 0 0 0 0 1 0\n0 0 0 0 0 0 0 1\n' > "$T/i8"
for w in wq wk wv wo; do "$ATTN" matmul "$T/i8" "$g/$w.npy" --transpose-b --format npy -o "$T/$w.T.npy"; done
run attend -x "$g/x.npy" --linear-layout --wq "$T/wq.T.npy" --wk "$T/wk.T.npy" --wv "$T/wv.T.npy" --wo "$T/wo.T.npy" \
    --bq "$g/bq.npy" --bk "$g/bk.npy" --bv "$g/bv.npy" --bo "$g/bo.npy" --heads 2 --causal --show output \
    --format npy -o "$T/linear.npy"
expect_code 0 "--linear-layout with --wq/--wk/--wv/--wo"
[ -x "$ALLCLOSE" ] && { "$ALLCLOSE" "$T/linear.npy" "$g/output.npy" >/dev/null 2>&1 && pass || fail "--linear-layout output differs from PyTorch"; }

# A weight read as nn.Linear's out×in was reported with its transposed shape ("--wq is 6x8
# (read as out×in)" for an 8x6 file, which as out×in would fit D=8): the file's shape now.
"$ATTN" random --shape 8,6 --seed 3 --format npy -o "$T/w86.npy"
run attend -x "$g/x.npy" --heads 2 --linear-layout --wq "$T/w86.npy"
expect_code 3 "--linear-layout --wq of the wrong width"
expect_err_has "--wq is 8x6 (out×in: 6 inputs) but -x has D=8" "--linear-layout: the file's shape and its inputs"
run attend -x "$g/x.npy" --heads 2 --out-proj "$T/w86.npy"
expect_code 3 "--out-proj of the wrong width"
expect_err_has "--out-proj is 8x6 (out×in: 6 inputs)" "--out-proj: the file's shape and its inputs"

# Usage errors (exit 2) name the options.
run attend -x "$dir/x.npy" --heads 4 --kv-heads 3
expect_code 2 "--heads 4 --kv-heads 3"
expect_err_has "--heads 4 is not a multiple of --kv-heads 3" "H % G message"
run attend -x "$dir/x.npy" --kv-heads 2
expect_code 2 "--kv-heads without --heads"
run attend -q "$MHA/qkv_gqa_b2_g2/q.npy" -k "$MHA/qkv_gqa_b2_g2/k.npy" -v "$MHA/qkv_gqa_b2_g2/v.npy" --heads 2
expect_code 3 "--heads with 4-D -q/-k/-v (packed heads are 2-D or 3-D)"
expect_err_has "a 4-D input already has them (drop --heads)" "--heads with 4-D -q/-k/-v: message"
run attend -q "$MHA/qkv_gqa_b2_g2/q.npy" -k "$MHA/qkv_gqa_b2_g2/k.npy" -v "$MHA/qkv_gqa_b2_g2/v.npy" \
    --wq "$MHA/gqa_h4_g2_e8/wq.npy"
expect_code 2 "--wq with -q/-k/-v"
expect_err_has "only the output is projected" "--wq with -q/-k/-v: what is projected"
run attend -q "$MHA/qkv_gqa_b2_g2/q.npy" -k "$MHA/qkv_gqa_b2_g2/k.npy" -v "$MHA/qkv_gqa_b2_g2/v.npy" --linear-layout
expect_code 2 "--linear-layout with -q/-k/-v and no --wo"
run attend -q "$MHA/qkv_gqa_b2_g2/q.npy" -k "$MHA/qkv_gqa_b2_g2/k.npy" -v "$MHA/qkv_gqa_b2_g2/v.npy" \
    --bo "$MHA/gqa_h4_g2_e8/bo.npy"
expect_code 2 "--bo without --wo, with -q/-k/-v"
expect_err_has "--wo FILE is missing" "--bo names --wo"
run attend -q "$MHA/qkv_gqa_b2_g2/q.npy" -k "$MHA/qkv_gqa_b2_g2/k.npy" -v "$MHA/qkv_gqa_b2_g2/v.npy" \
    --wo "$MHA/gqa_h4_g2_e8/wo.npy"
expect_code 3 "--wo whose rows are not the heads' H·d_v"
expect_err_has "W_O needs that many rows" "--wo rows against H·d_v"
run attend -x "$dir/x.npy" --bq "$dir/in_proj_bias.npy"
expect_code 2 "--bq without --wq"
expect_err_has "--wq FILE is missing" "--bq names --wq"
run attend -x "$dir/x.npy" --in-proj "$dir/in_proj_weight.npy" --wq "$dir/in_proj_weight.npy" --heads 2
expect_code 2 "--in-proj with --wq"
run attend "${mha_args[@]}" --head 2 --heatmap
expect_code 2 "--head beyond the heads"
run attend "${mha_args[@]}" --head 1
expect_code 2 "--head without a picture"
run attend "${mha_args[@]}" --batch-items 2:5
expect_code 2 "--batch-items beyond B"

# Bad input (exit 3): shapes that do not fit, named with the options.
q=$MHA/qkv_gqa_b2_g2
"$ATTN" random --seed 5 --shape 2,3,6,5 --format npy -o "$T/k3.npy"
run attend -q "$q/q.npy" -k "$T/k3.npy" -v "$T/k3.npy"
expect_code 3 "4 query heads against 3 key/value heads"
expect_err_has "(2, 4, 3, 5)" "the error names -q's shape"
expect_err_has "(2, 3, 6, 5)" "the error names -k's shape"
run attend -x "$g/x.npy" --wq "$g/wq.npy" --wk "$g/wq.npy" --wv "$g/wv.npy" --heads 2 --kv-heads 1
expect_code 3 "--wk with columns for 2 heads, --kv-heads 1"
expect_err_has "--wk gives 8 columns" "the error names --wk"
run attend "${mha_args[@]}" --lengths 4,2
expect_code 3 "--lengths for 2 of 3 batch items"
expect_err_has "--lengths gives 2 lengths but there are 3 batch items" "--lengths count message"
run attend "${mha_args[@]}" --lengths 4,9,1
expect_code 3 "--lengths beyond Tk"
run attend -x "$dir/x.npy" --in-proj "$dir/out_proj_weight.npy" --heads 2
expect_code 3 "--in-proj that is not 3E×E"
expect_err_has "--in-proj is 8x8" "--in-proj shape message"
run attend -x "$dir/x.npy" --heads 3
expect_code 3 "D=8 does not split into 3 heads"
run attend "${mha_args[@]}" --mask "$T/k3.npy"
expect_code 3 "--mask that does not broadcast"
expect_err_has "--mask is 2x3x6x5" "--mask shape message"

# Text output: every 2-D slice headed "# NAME [b, h] RxC", and it reads back.
run attend "${mha_args[@]}" --causal --show weights,weights-mean --format csv
expect_code 0 "csv of batched heads"
expect_out_has "# weights [2, 1] 4x4" "per-slice header with batch and head"
expect_out_has "# weights-mean [2] 4x4" "per-batch header of the mean weights"
run attend "${mha_args[@]}" --causal --show weights --format csv -o "$T/w.csv"
run attend "${mha_args[@]}" --causal --show weights --format npy -o "$T/w.npy"
run attend -q "$T/w.csv" -k "$T/w.csv" -v "$T/w.csv" --show queries --format npy -o "$T/w-back.npy"
expect_code 0 "csv of (3, 2, 4, 4) weights reads back as a tensor"
[ -x "$ALLCLOSE" ] && { "$ALLCLOSE" "$T/w-back.npy" "$T/w.npy" --rtol 1e-7 --atol 0 >/dev/null 2>&1 && pass || fail "csv weights read back differ from npy"; }
run attend "${mha_args[@]}" --show output --format json
expect_code 0 "json of a batched output"
expect_out_has '"output": [' "json names the output"
n=$(grep -c '^      \[' "$T/out"); [ "$n" -eq 12 ] && pass || fail "json output: $n rows at depth 3, expected 3 x 4"

# Variance per (batch item, head).
run attend "${mha_args[@]}" --causal --show variance --format json
expect_code 0 "variance per head, json"
expect_out_has '"batch": 2' "json variance carries the batch item"
expect_out_has '"head": 1' "json variance carries the head"
n=$(grep -c '"head":' "$T/out"); [ "$n" -eq 6 ] && pass || fail "json variance: $n records, expected 3 batch items x 2 heads"
run attend "${mha_args[@]}" --causal --show variance --format pretty
expect_code 0 "variance per head, pretty"
n=$(grep -cE '^ +[0-9]+ +[0-9]+ +' "$T/out"); [ "$n" -eq 6 ] && pass || fail "pretty variance table: $n rows, expected 6"

# Pictures: a grid of heads in one SVG, one head with --head/--batch, a heatmap per head.
run attend "${mha_args[@]}" --causal --svg "$T/grid.svg" --show output --format csv
expect_code 0 "--svg of 3 batch items x 2 heads"
n=$(grep -c 'class="panel"' "$T/grid.svg"); [ "$n" -eq 6 ] && pass || fail "grid: $n panels, expected 6"
n=$(grep -c 'class="colorbar"' "$T/grid.svg"); [ "$n" -eq 1 ] && pass || fail "grid: $n colour bars, expected one shared"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$T/grid.svg" 2>"$T/err" && pass || fail "grid SVG is not well-formed: $(cat "$T/err")"
else
    fail "xmllint missing (make test installs libxml2-utils)"
fi
run attend "${mha_args[@]}" --causal --svg "$T/one.svg" --head 1 --batch 2 --show output --format csv
expect_code 0 "--svg --head 1 --batch 2"
grep -q 'class="panel"' "$T/one.svg" && fail "one head drew a grid" || pass
grep -q 'weights \[2, 1\]' "$T/one.svg" && pass || fail "one head's title names [2, 1]"
run attend "${mha_args[@]}" --causal --heatmap
expect_code 0 "--heatmap of every head"
n=$(grep -c '^weights \[' "$T/out"); [ "$n" -eq 6 ] && pass || fail "heatmap: $n titles, expected 6"
run attend "${mha_args[@]}" --causal --heatmap --head 0 --batch 1
n=$(grep -c '^weights \[' "$T/out"); [ "$n" -eq 1 ] && pass || fail "heatmap --head 0 --batch 1: $n titles, expected 1"
expect_out_has "weights [1, 0]" "the title names the slice"

# Cross-attention pictures label both axes: --labels for the queries, --key-labels for the keys.
cc=$MHA/mha_cross_pad_e12_h4_b2
printf 'q0\nq1\nq2\n' > "$T/qlabels"
printf 'k0\nk1\nk2\nk3\nk4\n' > "$T/klabels"
run attend -x "$cc/x.npy" --kv "$cc/kv.npy" --in-proj "$cc/in_proj_weight.npy" --heads 4 --lengths 5,2 \
    --labels "$T/qlabels" --key-labels "$T/klabels" --svg "$T/cross.svg" --show output --format csv
expect_code 0 "--svg of cross-attention with query and key labels"
grep -q 'class="row-label"[^>]*>q2<' "$T/cross.svg" && pass || fail "the grid labels the queries"
grep -q '>k4</text>' "$T/cross.svg" && pass || fail "the grid labels the keys"
n=$(grep -c 'class="panel"' "$T/cross.svg"); [ "$n" -eq 8 ] && pass || fail "cross grid: $n panels, expected 2 x 4"
run attend -x "$cc/x.npy" --kv "$cc/kv.npy" --in-proj "$cc/in_proj_weight.npy" --heads 4 --key-labels "$T/qlabels"
expect_code 3 "--key-labels of the wrong length"

# --help documents every option of the multi-head form.
run attend --help
for o in --kv --heads --kv-heads --wq --wk --wv --bq --bk --bv --wo --bo --linear-layout --in-proj --in-proj-bias \
         --out-proj --out-proj-bias --lengths --key-labels --query-rows --batch-items --head --batch weights-mean output; do
    expect_out_has "$o" "attend --help mentions $o"
done
