# Multi-head, grouped-query and batched attention through `attn attend`, against the PyTorch
# fixtures in data/mha/ (nn.MultiheadAttention and hand-written GQA/SDPA in torch 1.13, with a
# float64 NumPy cross-check; see data/mha/README.md). Compared with tests/tools/allclose at
# rtol 1e-5 (the issue's bound) and atol 1e-6.

ALLCLOSE=$(dirname "$ATTN")/allclose
MHA=$ROOT/data/mha

# field CASE KEY: the value after "KEY: " in CASE/case.txt (first word).
field() { sed -n "s/^$2: *\([^ ,(]*\).*/\1/p" "$MHA/$1/case.txt" | head -n 1; }

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
