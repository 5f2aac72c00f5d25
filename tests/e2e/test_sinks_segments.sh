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
# A sink of -inf is no sink for its head (e^-inf = 0): each head's context the same bits as the
# run without sinks (heads 0 and 2) or with gpt-oss's sink for it (heads 1 and 3, the fixture's).
head_block() {  # FILE HEAD: the csv block of one head
    awk -v h="# context [$2] " 'index($0, h) == 1 { on = 1; next } /^#/ { on = 0 } on && NF' "$1"
}
printf -- '-inf\n-1.7356963\n-inf\n-0.3236169\n' >"$T/sinks_mixed.txt"
printf -- '-inf -inf -inf -inf\n' >"$T/sinks_none.txt"
for run in "nosinks|" "fixture|--sinks $g/sinks.npy" "mixed|--sinks $T/sinks_mixed.txt" "allinf|--sinks $T/sinks_none.txt"; do
    IFS='|' read -r name opt <<<"$run"
    # shellcheck disable=SC2086 # opt is empty or two words
    run attend -q "$g/q.npy" -k "$g/k.npy" -v "$g/v.npy" --causal $opt --show context --format csv
    expect_code 0 "sinks: the $name run"
    cp "$T/out" "$T/sinks_$name.csv"
done
for h in 0 1 2 3; do
    ref=$([ $((h % 2)) = 0 ] && echo nosinks || echo fixture)
    if [ -n "$(head_block "$T/sinks_mixed.csv" $h)" ] &&
        [ "$(head_block "$T/sinks_mixed.csv" $h)" = "$(head_block "$T/sinks_$ref.csv" $h)" ]; then pass
    else fail "sinks -inf,s1,-inf,s3: head $h is not the $ref run's"; fi
done
if cmp -s "$T/sinks_allinf.csv" "$T/sinks_nosinks.csv"; then pass; else fail "sinks all -inf: not the run without sinks"; fi
# --masked-rows decides the rows that see no key in a head whose sink is -inf (row 0 at causal
# offset -1); with every sink finite no row is masked, and --masked-rows is refused.
run attend -q "$g/q.npy" -k "$g/k.npy" -v "$g/v.npy" --causal-offset -1 --sinks "$T/sinks_mixed.txt" \
    --masked-rows nan --show context --format csv
expect_code 0 "--masked-rows nan with a sink of -inf"
rows=$(awk '/^# context/ { getline; print }' "$T/out" | tr '\n' ' ')
if [ "$rows" = "nan,nan,nan,nan,nan,nan,nan,nan 0,0,0,0,0,0,0,0 nan,nan,nan,nan,nan,nan,nan,nan 0,0,0,0,0,0,0,0 " ]; then pass
else fail "--masked-rows nan with sinks -inf,s1,-inf,s3: row 0 of each head is $rows"; fi
run attend -q "$g/q.npy" -k "$g/k.npy" -v "$g/v.npy" --causal-offset -1 --sinks "$g/sinks.npy" --masked-rows nan
expect_code 2 "--masked-rows with finite sinks"
expect_err_has "since every head's sink is finite" "--masked-rows with finite sinks: why"
printf 'nan 1 1 1\n' >"$T/sinks_nan.txt"
run attend -q "$g/q.npy" -k "$g/k.npy" -v "$g/v.npy" --sinks "$T/sinks_nan.txt"
expect_code 3 "a NaN sink"
expect_err_has "non-finite value 'nan' is not allowed here (only -inf is)" "a NaN sink refused"
# A column of ids, one a line (as --sinks takes them), is the (Tk,) row of every item.
printf '1 2\n3 4\n5 6\n7 8\n' >"$T/x4.txt"
printf '0 0 1 1\n' >"$T/seg_row.txt"; printf '0\n0\n1\n1\n' >"$T/seg_col.txt"
run attend -x "$T/x4.txt" --segments "$T/seg_row.txt" --show weights; cp "$T/out" "$T/seg_row_w"
run attend -x "$T/x4.txt" --segments "$T/seg_col.txt" --show weights
expect_code 0 "--segments as a column of ids"
if cmp -s "$T/out" "$T/seg_row_w" && [ -s "$T/out" ]; then pass; else fail "--segments as a column: not the row's result"; fi
printf '0\n1\n' >"$T/seg_short.txt"
run attend -x "$T/x4.txt" --segments "$T/seg_short.txt" --show weights
expect_code 3 "a column of 2 ids for 4 keys"
expect_err_has "--segments is a column of 2 ids for 4 key positions: give one document id per key position" \
    "a column of the wrong length named as a column"
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
