# attn attend --sinks FILE and --segments FILE against the PyTorch fixtures of data/sinks_segments/
# (gpt-oss's sdpa with its sinks, FlexAttention's document mask_mod; see its PROVENANCE.md), on the
# fused, split-K and materialised paths, compared with tests/tools/allclose.

ALLCLOSE=$(dirname "$ATTN")/allclose
DATA=$ROOT/data/sinks_segments

# flag CASE KEY: the value of KEY=VALUE in CASE/case.txt's first line.
flag() { head -n 1 "$DATA/$1/case.txt" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# compare RUN NAME CASE FILE: $T/RUN/NAME.npy against data/sinks_segments/CASE/FILE.npy.
compare() {
    local msg
    if [ ! -f "$T/$1/$2.npy" ]; then fail "$1: attn wrote no $2.npy: $ERR"; return; fi
    if msg=$("$ALLCLOSE" "$T/$1/$2.npy" "$DATA/$3/$4.npy" --rtol 1e-5 --atol 1e-6 2>&1); then pass
    else fail "$1: $2 differs from the PyTorch reference $3/$4: $msg"; fi
}

# attend_to RUN ARGS... SHOW: attend writing npy files into $T/RUN.
attend_to() {
    local c=$1; shift
    rm -rf "${T:?}/$c"
    local out=$T/$c
    case "${*: -1}" in *,*) ;; *) mkdir -p "$out"; out=$out/${*: -1}.npy ;; esac
    run attend "$@" --format npy -o "$out"
    if [ "$CODE" -ne 0 ]; then fail "$c: exit $CODE: $ERR"; return 1; fi
    pass
}

if [ ! -x "$ALLCLOSE" ]; then
    fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
else
    for dir in "$DATA"/*/; do
        c=$(basename "$dir")
        args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy")
        [ "$(flag "$c" causal)" = top-left ] && args+=(--causal)
        [ -f "$dir/sinks.npy" ] && args+=(--sinks "$dir/sinks.npy")
        w=$(flag "$c" window); [ -n "$w" ] && [ "$w" != none ] && args+=(--window "$w")
        s=$(flag "$c" segments); [ -n "$s" ] && args+=(--segments "$dir/$s")
        l=$(flag "$c" lengths); [ -n "$l" ] && args+=(--lengths "$l")
        attend_to "$c-fused" "${args[@]}" --show context && compare "$c-fused" context "$c" context
        for threads in 1 3; do
            attend_to "$c-mat$threads" "${args[@]}" --threads "$threads" --show weights,context && {
                compare "$c-mat$threads" context "$c" context
                [ -f "$dir/weights.npy" ] && compare "$c-mat$threads" weights "$c" weights
            }
        done
        if cmp -s "$T/$c-mat1/context.npy" "$T/$c-mat3/context.npy"; then pass
        else fail "$c: the context differs between 1 and 3 threads"; fi
    done
fi

# Without --sinks the gpt-oss case's rows sum to 1, and the reference's do not: the fixture sees the sinks.
g=$DATA/sinks_gqa_causal
attend_to nosink -q "$g/q.npy" -k "$g/k.npy" -v "$g/v.npy" --causal --show context
if "$ALLCLOSE" "$T/nosink/context.npy" "$g/context.npy" --rtol 1e-5 --atol 1e-6 >/dev/null 2>&1; then
    fail "the context without --sinks equals gpt-oss's: the fixture does not see the sinks"
else pass; fi
# Without --segments the documents' context differs.
d=$DATA/documents_causal_per_item
attend_to nodocs -q "$d/q.npy" -k "$d/k.npy" -v "$d/v.npy" --causal --show context
if "$ALLCLOSE" "$T/nodocs/context.npy" "$d/context.npy" --rtol 1e-5 --atol 1e-6 >/dev/null 2>&1; then
    fail "the context without --segments equals the document mask's"
else pass; fi

# --softmax-precision f64 keeps the sinks in the denominator: each sink fixture's weights again.
for dir in "$DATA"/*/; do
    c=$(basename "$dir")
    [ -f "$dir/sinks.npy" ] && [ -f "$dir/weights.npy" ] || continue
    args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy" --sinks "$dir/sinks.npy")
    [ "$(flag "$c" causal)" = top-left ] && args+=(--causal)
    l=$(flag "$c" lengths); [ -n "$l" ] && args+=(--lengths "$l")
    w=$(flag "$c" window); [ -n "$w" ] && [ "$w" != none ] && args+=(--window "$w")
    s=$(flag "$c" segments); [ -n "$s" ] && args+=(--segments "$dir/$s")
    attend_to "$c-f64" "${args[@]}" --softmax-precision f64 --show weights,context && {
        compare "$c-f64" weights "$c" weights
        compare "$c-f64" context "$c" context
    }
done

# --help names both options and their place in the order of operations.
run attend --help
for o in --sinks --segments gpt-oss FlexAttention; do
    expect_out_has "$o" "attend --help documents $o"
done
