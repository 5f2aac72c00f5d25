# Issue 23's causal offsets: --causal-offset N[,N...] against an awk reference written from
# ONNX's definition (key j visible iff j <= i + N, the window around p = i + N), per batch item;
# --causal=bottom-right with --lengths (each item's length − Tq); the K/V cache --past-k/--past-v
# (the present cache, the offset P, RoPE continuing at P); --softmax-precision f64.

"$ATTN" random --shape 5,4 --seed 11 --format csv > "$T/q.csv"
"$ATTN" random --shape 8,4 --seed 12 --format csv | awk -F, -v OFS=, '{ for (i = 1; i <= NF; i++) $i *= 2 } 1' > "$T/k.csv"
"$ATTN" random --shape 8,3 --seed 13 --format csv > "$T/v.csv"

# reference Q K V OFFSET L (-1 = unbounded): the float64 context, one row per line; a row with
# no visible key is 0 (--masked-rows zero).
reference() {
    awk -F, -v off="$4" -v L="$5" '
        FILENAME == ARGV[1] { nq++; for (c = 1; c <= NF; c++) q[nq, c] = $c; d = NF; next }
        FILENAME == ARGV[2] { nk++; for (c = 1; c <= NF; c++) k[nk, c] = $c; next }
        { nv++; for (c = 1; c <= NF; c++) v[nv, c] = $c; dv = NF }
        END {
            for (i = 0; i < nq; i++) {
                p = i + off; mx = -1e300
                for (j = 0; j < nk; j++) {
                    s = 0; for (c = 1; c <= d; c++) s += q[i + 1, c] * k[j + 1, c]
                    z[j] = s / sqrt(d); ok[j] = j <= p && (L < 0 || j >= p - L)
                    if (ok[j] && z[j] > mx) mx = z[j]
                }
                sum = 0; for (j = 0; j < nk; j++) if (ok[j]) sum += exp(z[j] - mx)
                line = ""
                for (c = 1; c <= dv; c++) {
                    acc = 0; for (j = 0; j < nk; j++) if (ok[j]) acc += exp(z[j] - mx) / sum * v[j + 1, c]
                    line = line (c > 1 ? "," : "") sprintf("%.9g", sum > 0 ? acc : 0)
                }
                print line
            }
        }' "$1" "$2" "$3"
}

qkv=(-q "$T/q.csv" -k "$T/k.csv" -v "$T/v.csv" --format csv)
# Negative offsets (rows with no key at all), 0, Tk − Tq = 3, and past the last key; fused
# (context alone) and materialised (with the weights), with and without a window.
for off in -6 -2 0 3 9; do
    for L in -1 1; do
        win=(); [ "$L" -ge 0 ] && win=(--window "$L")
        reference "$T/q.csv" "$T/k.csv" "$T/v.csv" "$off" "$L" > "$T/want"
        run attend "${qkv[@]}" --causal-offset=$off "${win[@]}"
        expect_code 0 "--causal-offset $off ${win[*]}"
        expect_close "$T/want" "$T/out" 2e-6 "fused context, --causal-offset $off ${win[*]}"
        run attend "${qkv[@]}" --causal-offset=$off "${win[@]}" --show weights,context
        sed -n '/^# context/,$p' "$T/out" > "$T/ctx"
        expect_close "$T/want" "$T/ctx" 2e-6 "materialised context, --causal-offset $off ${win[*]}"
    done
done

# The offset Tk − Tq is bottom-right, bit for bit; 0 is top-left.
run attend "${qkv[@]}" --causal=bottom-right; cp "$T/out" "$T/br"
run attend "${qkv[@]}" --causal-offset 3
if cmp -s "$T/br" "$T/out"; then pass; else fail "--causal-offset 3 (Tk - Tq) differs from --causal=bottom-right"; fi
run attend "${qkv[@]}" --causal; cp "$T/out" "$T/tl"
run attend "${qkv[@]}" --causal-offset 0
if cmp -s "$T/tl" "$T/out"; then pass; else fail "--causal-offset 0 differs from --causal"; fi

# Per batch item: items 0 and 1 at offsets -1 and 4 are what each computes alone (threads 1,
# 2, 3 give the same bits).
"$ATTN" random --shape 2,2,5,4 --seed 21 --format npy -o "$T/q4.npy"
"$ATTN" random --shape 2,2,8,4 --seed 22 --format npy -o "$T/k4.npy"
"$ATTN" random --shape 2,2,8,3 --seed 23 --format npy -o "$T/v4.npy"
qkv4=(-q "$T/q4.npy" -k "$T/k4.npy" -v "$T/v4.npy" --format csv)
run attend "${qkv4[@]}" --causal-offset=-1,4 --threads 1; cp "$T/out" "$T/both"
for t in 2 3; do
    run attend "${qkv4[@]}" --causal-offset=-1,4 --threads "$t"
    if cmp -s "$T/both" "$T/out"; then pass; else fail "--causal-offset -1,4: threads $t differ from 1"; fi
done
run attend "${qkv4[@]}" --causal-offset=-1 --batch-items 0:1; cp "$T/out" "$T/b0"
run attend "${qkv4[@]}" --causal-offset 4 --batch-items 1:2
if [ "$(cat "$T/b0" "$T/out" | grep -vc '^#')" -gt 0 ] && cmp -s <(grep -v '^#' "$T/both") <(cat "$T/b0" "$T/out" | grep -v '^#'); then pass
else fail "--causal-offset -1,4 differs from each batch item computed alone at its offset"; fi

# --causal=bottom-right with --lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen).
run attend "${qkv4[@]}" --causal=bottom-right --lengths 6,8; cp "$T/out" "$T/br_len"
run attend "${qkv4[@]}" --causal-offset=1,3 --lengths 6,8
if cmp -s "$T/br_len" "$T/out"; then pass; else fail "bottom-right with --lengths 6,8 is not offsets 6-5, 8-5"; fi

# A cache: the present keys are past ++ new; the result is attention over them with the queries
# at offset P. The cached keys are as they enter the scores (HF's past_key_values): with --rope
# they are rotated already, and only the new keys are rotated, at P….
"$ATTN" random --shape 2,2,6,4 --seed 24 --format npy -o "$T/pk.npy"
"$ATTN" random --shape 2,2,6,3 --seed 25 --format npy -o "$T/pv.npy"
"$ATTN" concat --axis -2 "$T/pk.npy" "$T/k4.npy" -o "$T/kk.npy"
"$ATTN" concat --axis -2 "$T/pv.npy" "$T/v4.npy" -o "$T/vv.npy"
cache=(-q "$T/q4.npy" -k "$T/k4.npy" -v "$T/v4.npy" --past-k "$T/pk.npy" --past-v "$T/pv.npy" --format csv)
run attend "${cache[@]}" --show keys
expect_code 0 "--past-k --show keys"
"$ATTN" concat "$T/kk.npy" --format csv > "$T/want"
if cmp -s <(grep -v '^#' "$T/want") <(grep -v '^#' "$T/out"); then pass; else fail "--show keys with a cache is not past ++ new"; fi
for opt in "--causal" "--causal --window 2" "--causal --alibi"; do
    run attend "${cache[@]}" $opt; cp "$T/out" "$T/with_cache"
    run attend -q "$T/q4.npy" -k "$T/kk.npy" -v "$T/vv.npy" --format csv --causal-offset 6 $opt
    if cmp -s "$T/with_cache" "$T/out"; then pass; else fail "a cache with $opt differs from the whole keys at offset 6"; fi
done
# RoPE: the cache holds pk rotated at 0..5 (--show keys with --rope prints K rotated); the new keys
# are rotated at 6..; bit for bit the whole run with every key rotated, and --show keys of the
# cached run is the whole run's rotated keys.
run attend -q "$T/pk.npy" -k "$T/pk.npy" -v "$T/pv.npy" --rope 10000 --show keys --format npy -o "$T/pk_rot.npy"
expect_code 0 "--rope --show keys"
rope_cache=(-q "$T/q4.npy" -k "$T/k4.npy" -v "$T/v4.npy" --past-k "$T/pk_rot.npy" --past-v "$T/pv.npy")
run attend "${rope_cache[@]}" --causal --rope 10000 --format csv; cp "$T/out" "$T/with_cache"
run attend -q "$T/q4.npy" -k "$T/kk.npy" -v "$T/vv.npy" --format csv --causal-offset 6 --causal --rope 10000
if cmp -s "$T/with_cache" "$T/out"; then pass; else fail "a rotated cache with --rope differs from the whole keys at offset 6"; fi
run attend "${rope_cache[@]}" --causal --rope 10000 --show keys --format csv; cp "$T/out" "$T/with_cache"
run attend -q "$T/q4.npy" -k "$T/kk.npy" -v "$T/vv.npy" --format csv --causal-offset 6 --causal --rope 10000 --show keys
if cmp -s "$T/with_cache" "$T/out"; then pass; else fail "--show keys of a rotated cache with --rope is not the whole run's rotated keys"; fi
run attend -q "$T/pk.npy" -k "$T/pk.npy" -v "$T/pv.npy" --show keys --format npy -o "$T/pk_same.npy"
if cmp -s "$T/pk_same.npy" "$T/pk.npy"; then pass; else fail "--show keys without --rope is not -k as given"; fi
if ! cmp -s "$T/pk_rot.npy" "$T/pk.npy"; then pass; else fail "--show keys with --rope did not rotate the keys"; fi

# --softmax-precision f64 agrees with f32 to float32 rounding, and with the reference.
reference "$T/q.csv" "$T/k.csv" "$T/v.csv" 2 -1 > "$T/want"
run attend "${qkv[@]}" --causal-offset 2 --softmax-precision f64
expect_code 0 "--softmax-precision f64"
expect_close "$T/want" "$T/out" 2e-6 "--softmax-precision f64 context"

# --help documents each option.
run attend --help
for o in --causal-offset --past-k --past-v --softmax-precision; do expect_out_has "$o" "attend --help documents $o"; done
