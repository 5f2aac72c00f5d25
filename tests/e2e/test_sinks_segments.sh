# attn attend --sinks FILE and --segments FILE against the PyTorch fixtures of data/sinks_segments/
# (gpt-oss's sdpa with its sinks, FlexAttention's document mask_mod; see its PROVENANCE.md), on the
# fused, split-K and materialised paths, compared with tests/tools/allclose.

ALLCLOSE=$(dirname "$ATTN")/allclose
FIXTURES=$ROOT/data/sinks_segments


if [ ! -x "$ALLCLOSE" ]; then
    fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
else
    for dir in "$FIXTURES"/*/; do
        c=$(basename "$dir")
        args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy")
        [ "$(flag "$c" causal)" = top-left ] && args+=(--causal)
        [ -f "$dir/sinks.npy" ] && args+=(--sinks "$dir/sinks.npy")
        w=$(flag "$c" window); [ -n "$w" ] && [ "$w" != none ] && args+=(--window "$w")
        s=$(flag "$c" segments); [ -n "$s" ] && args+=(--segments "$dir/$s")
        l=$(flag "$c" lengths); [ -n "$l" ] && args+=(--lengths "$l")
        o=$(flag "$c" causal_offset); [ -n "$o" ] && args+=(--causal-offset "$o")
        attend_to "$c-fused" "${args[@]}" --show context && compare_npy "$c-fused" context "$c" context
        for threads in 1 3; do
            attend_to "$c-mat$threads" "${args[@]}" --threads "$threads" --show weights,context && {
                compare_npy "$c-mat$threads" context "$c" context
                [ -f "$dir/weights.npy" ] && compare_npy "$c-mat$threads" weights "$c" weights
            }
        done
        if cmp -s "$T/$c-mat1/context.npy" "$T/$c-mat3/context.npy"; then pass
        else fail "$c: the context differs between 1 and 3 threads"; fi
    done
fi

# Without --sinks the gpt-oss case's rows sum to 1, and the reference's do not: the fixture sees the sinks.
g=$FIXTURES/sinks_gqa_causal
attend_to nosink -q "$g/q.npy" -k "$g/k.npy" -v "$g/v.npy" --causal --show context
if "$ALLCLOSE" "$T/nosink/context.npy" "$g/context.npy" --rtol 1e-5 --atol 1e-6 >/dev/null 2>&1; then
    fail "the context without --sinks equals gpt-oss's: the fixture does not see the sinks"
else pass; fi
# Without --segments the documents' context differs.
d=$FIXTURES/documents_causal_per_item
attend_to nodocs -q "$d/q.npy" -k "$d/k.npy" -v "$d/v.npy" --causal --show context
if "$ALLCLOSE" "$T/nodocs/context.npy" "$d/context.npy" --rtol 1e-5 --atol 1e-6 >/dev/null 2>&1; then
    fail "the context without --segments equals the document mask's"
else pass; fi

# --softmax-precision f64 keeps the sinks in the denominator: each sink fixture's weights again.
for dir in "$FIXTURES"/*/; do
    c=$(basename "$dir")
    [ -f "$dir/sinks.npy" ] && [ -f "$dir/weights.npy" ] || continue
    args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy" --sinks "$dir/sinks.npy")
    [ "$(flag "$c" causal)" = top-left ] && args+=(--causal)
    l=$(flag "$c" lengths); [ -n "$l" ] && args+=(--lengths "$l")
    w=$(flag "$c" window); [ -n "$w" ] && [ "$w" != none ] && args+=(--window "$w")
    s=$(flag "$c" segments); [ -n "$s" ] && args+=(--segments "$dir/$s")
    attend_to "$c-f64" "${args[@]}" --softmax-precision f64 --show weights,context && {
        compare_npy "$c-f64" weights "$c" weights
        compare_npy "$c-f64" context "$c" context
    }
done

# --help names both options and their place in the order of operations.
run attend --help
for o in --sinks --segments gpt-oss FlexAttention; do
    expect_out_has "$o" "attend --help documents $o"
done
