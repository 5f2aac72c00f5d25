# attn attend -x with a K/V cache (--past-k/--past-v) against the PyTorch fixtures of data/kv_cache/
# (HF's LlamaAttention with its DynamicCache, GPT-J's interleaved RoPE; see its PROVENANCE.md): the
# whole sequence at once, then a prefix and decode steps, each passing --show keys,values back as
# the next step's cache. Grouped-query and multi-query heads, RoPE, biases, B=2.

ALLCLOSE=$(dirname "$ATTN")/allclose
FIXTURES=$ROOT/data/kv_cache


if [ ! -x "$ALLCLOSE" ]; then
    fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
else
    for dir in "$FIXTURES"/*/; do
        c=$(basename "$dir")
        args=(--heads "$(flag "$c" heads)" --kv-heads "$(flag "$c" kv_heads)" --linear-layout --causal
              --wq "$dir/wq.npy" --wk "$dir/wk.npy" --wv "$dir/wv.npy")
        [ "$(flag "$c" bias)" = 1 ] && args+=(--bq "$dir/bq.npy" --bk "$dir/bk.npy" --bv "$dir/bv.npy")
        r=$(flag "$c" rope); [ "$r" != none ] && args+=(--rope "$r" --rope-style "$(flag "$c" rope_style)")
        attend_to "$c-whole" -x "$dir/x.npy" "${args[@]}" --show context,keys,values && {
            compare_npy "$c-whole" context "$c" context
            compare_npy "$c-whole" keys "$c" present_k
            compare_npy "$c-whole" values "$c" present_v
        }
        past=()
        for xs in "$dir"/x_step*.npy; do
            s=$(basename "$xs" .npy); s=${s#x_}
            attend_to "$c-$s" -x "$xs" "${args[@]}" "${past[@]}" --show context,keys,values &&
                compare_npy "$c-$s" context "$c" "context_$s"
            # The materialised path (with the weights) and threads 1, 2, 3: the same context.
            attend_to "$c-$s-mat" -x "$xs" "${args[@]}" "${past[@]}" --threads 2 --show weights,context &&
                compare_npy "$c-$s-mat" context "$c" "context_$s"
            for t in 1 3; do
                attend_to "$c-$s-t$t" -x "$xs" "${args[@]}" "${past[@]}" --threads "$t" --show context,keys,values
                if cmp -s "$T/$c-$s-t$t/context.npy" "$T/$c-$s/context.npy"; then pass
                else fail "$c $s: the context differs between --threads $t and 2"; fi
            done
            past=(--past-k "$T/$c-$s/keys.npy" --past-v "$T/$c-$s/values.npy")
        done
        # The last step's present cache is the whole run's, bit for bit (the same rotations).
        for kv in keys values; do
            if cmp -s "$T/$c-$s/$kv.npy" "$T/$c-whole/$kv.npy"; then pass
            else fail "$c: the present $kv after the last step differ from the whole run's"; fi
        done
    done
fi

# One head, no batch (-x T×D, the cache P×d as --show keys prints it): a prefix of 5 and one token
# through the cache give the whole run's last row; the cache as (1, 1, P, d) too. Threads 1 and 3.
"$ATTN" random --shape 6,8 --seed 41 --format csv > "$T/x6.csv"
head -n 5 "$T/x6.csv" > "$T/x_pre.csv"; tail -n 1 "$T/x6.csv" > "$T/x_new.csv"
"$ATTN" random --shape 8,4 --seed 42 --format npy -o "$T/wq.npy"
"$ATTN" random --shape 8,4 --seed 43 --format npy -o "$T/wk.npy"
"$ATTN" random --shape 8,3 --seed 44 --format npy -o "$T/wv.npy"
one=(--wq "$T/wq.npy" --wk "$T/wk.npy" --wv "$T/wv.npy" --causal --rope 10000)
run attend -x "$T/x6.csv" "${one[@]}" --format csv; expect_code 0 "-x T×D whole"; tail -n 1 "$T/out" > "$T/whole_last"
run attend -x "$T/x_pre.csv" "${one[@]}" --show keys,values --format npy -o "$T/pre"; expect_code 0 "-x T×D prefix"
for t in 1 3; do
    run attend -x "$T/x_new.csv" "${one[@]}" --past-k "$T/pre/keys.npy" --past-v "$T/pre/values.npy" --format csv --threads $t
    expect_code 0 "-x T×D one token with a P×d cache"
    expect_close "$T/whole_last" "$T/out" 1e-6 "-x T×D: the token through the cache, --threads $t"
done
cp "$T/out" "$T/step"
# --pos sinusoidal: the new token is at position P (5), as in the whole run (it was given position 0)
pos=(--wq "$T/wq.npy" --wk "$T/wk.npy" --wv "$T/wv.npy" --causal --pos sinusoidal)
run attend -x "$T/x6.csv" "${pos[@]}" --format csv; tail -n 1 "$T/out" > "$T/whole_pos_last"
run attend -x "$T/x_pre.csv" "${pos[@]}" --show keys,values --format npy -o "$T/pre_pos"
run attend -x "$T/x_new.csv" "${pos[@]}" --past-k "$T/pre_pos/keys.npy" --past-v "$T/pre_pos/values.npy" --format csv
expect_code 0 "--pos sinusoidal with a cache"
expect_close "$T/whole_pos_last" "$T/out" 1e-6 "--pos sinusoidal: the token through the cache at position P"
# The same cache as (1, 1, P, d): HF's layout.
run attend -q "$T/pre/keys.npy" -k "$T/pre/keys.npy" -v "$T/pre/keys.npy" --show keys --format csv
awk -F, 'BEGIN { print "[[[" } { printf "%s[%s]", (NR > 1 ? "," : ""), $0 } END { print "]]]" }' \
    <(grep -v '^#' "$T/out") > "$T/k4.txt"
run attend -q "$T/pre/values.npy" -k "$T/pre/values.npy" -v "$T/pre/values.npy" --show values --format csv
awk -F, 'BEGIN { print "[[[" } { printf "%s[%s]", (NR > 1 ? "," : ""), $0 } END { print "]]]" }' \
    <(grep -v '^#' "$T/out") > "$T/v4.txt"
awk -F, 'BEGIN { print "[[" } { printf "%s[%s]", (NR > 1 ? "," : ""), $0 } END { print "]]" }' \
    <(grep -v '^#' "$T/out") > "$T/v3.txt"
run attend -x "$T/x_new.csv" "${one[@]}" --past-k "$T/k4.txt" --past-v "$T/v4.txt" --format csv
expect_code 0 "-x T×D with a (1, 1, P, d) cache"
if cmp -s "$T/step" "$T/out"; then pass; else fail "a (1, 1, P, d) cache differs from the same P×d cache"; fi

# The cache's shape must be what --show keys,values print for these options, its d and heads the new
# keys' and values'.
run attend -x "$T/x_new.csv" "${one[@]}" --past-k "$T/k4.txt" --past-v "$T/v3.txt"
expect_code 3 "-x with a (1, P, d) cache"
expect_err_has "--past-v is (1, 5, 3): with -x a cache is P×d as --show keys,values print it, or B×G×P×d" "the cache's layout is named"
run attend -x "$T/x_new.csv" "${one[@]}" --past-k "$T/pre/values.npy" --past-v "$T/pre/values.npy"
expect_code 3 "-x with cached keys of the values' width"
expect_err_has "--past-k: the cached keys are (1, 1, 5, 3) but the new keys have 4 columns per head" "the cache's width is checked"

# An empty cache (P = 0: ONNX's past_key before the first token, HF's first step) is no cache: the
# same bits as without one, its batch, heads and d still checked. numpy.save's layout of a float32
# .npy with no data, written here.
empty_npy() {  # FILE SHAPE
    local dict="{'descr': '<f4', 'fortran_order': False, 'shape': $2, }" pad n
    pad=$(((64 - (10 + ${#dict} + 1) % 64) % 64))
    dict="$dict$(printf '%*s' "$pad" '')"
    n=$((${#dict} + 1))
    # shellcheck disable=SC2059 # the header length's 2 little-endian bytes, as printf escapes
    { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $((n >> 8)))"; printf '%s\n' "$dict"; } >"$1"
}
G4=$ROOT/data/onnx/test_attention_4d_gqa
empty_npy "$T/pk0.npy" "(2, 3, 0, 8)"
run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" --causal --show weights,context,keys,values --format npy -o "$T/nocache"
expect_code 0 "ONNX's 4-D GQA case without a cache"
run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" --causal --past-k "$T/pk0.npy" --past-v "$T/pk0.npy" \
    --show weights,context,keys,values --format npy -o "$T/emptycache"
expect_code 0 "ONNX's 4-D GQA case with an empty cache"
for f in weights context keys values; do
    if cmp -s "$T/nocache/$f.npy" "$T/emptycache/$f.npy"; then pass; else fail "an empty cache: $f.npy differs from no cache"; fi
done
# ... with the options a cache excludes too (--lengths, --key-rows, --causal-offset): as without one
for extra in "--lengths 3,4" "--key-rows 0:3" "--causal-offset 1 --causal"; do
    # shellcheck disable=SC2086 # the options as words
    run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" $extra --format npy -o "$T/nc.npy"
    # shellcheck disable=SC2086
    run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" $extra --past-k "$T/pk0.npy" --past-v "$T/pk0.npy" \
        --format npy -o "$T/ec.npy"
    expect_code 0 "an empty cache with $extra"
    if cmp -s "$T/nc.npy" "$T/ec.npy"; then pass; else fail "an empty cache with $extra: not the result without one"; fi
done
empty_npy "$T/pk0_d7.npy" "(2, 3, 0, 7)"
run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" --past-k "$T/pk0_d7.npy" --past-v "$T/pk0.npy"
expect_code 3 "an empty cache of another d"
expect_err_has "its last dimension (7) must match -k's (2, 3, 6, 8) (8)" "the empty cache's d is checked"
run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" --past-k "$T/pk0.npy" --past-v "$G4/V.npy"
expect_code 3 "an empty --past-k with 6 cached values"
expect_err_has "--past-k has 0 cached keys but --past-v 6 cached values" "the lengths must match, 0 too"
empty_npy "$T/xk0.npy" "(0, 4)"
empty_npy "$T/xk0_d3.npy" "(0, 3)"
run attend -x "$T/x_new.csv" "${one[@]}" --format csv
cp "$T/out" "$T/x_nocache"
run attend -x "$T/x_new.csv" "${one[@]}" --past-k "$T/xk0.npy" --past-v "$T/xk0_d3.npy" --format csv
expect_code 0 "-x with an empty cache"
if cmp -s "$T/x_nocache" "$T/out"; then pass; else fail "-x: an empty cache differs from no cache"; fi
run attend -x "$T/x_new.csv" "${one[@]}" --past-k "$T/xk0_d3.npy" --past-v "$T/xk0_d3.npy"
expect_code 3 "-x with an empty cache of another d"
expect_err_has "the cached keys are (1, 1, 0, 3) but the new keys have 4 columns per head" "-x: the empty cache's d is checked"
# An empty cache with bytes after its header: those bytes named, not "empty array".
cp "$T/pk0.npy" "$T/pk0_trail.npy" && printf '0123456789abcdef' >>"$T/pk0_trail.npy"
run attend -q "$G4/Q.npy" -k "$G4/K.npy" -v "$G4/V.npy" --past-k "$T/pk0_trail.npy" --past-v "$T/pk0.npy"
expect_code 3 "an empty cache with trailing bytes"
expect_err_has "16 unexpected bytes after the array data (an empty cache, shape (2, 3, 0, 8), has none)" \
    "an empty cache's trailing bytes named"
