# attn attend --softcap C and --window L[:R]: the results against an awk reference written
# from the definition (ONNX Attention's order: scale·Q·Kᵀ, C·tanh(x/C), + bias, the causal
# rule and the window set -inf, softmax, ·V), --show capped, fully masked rows, --help.

"$ATTN" random --shape 6,4 --seed 1 --format csv > "$T/q.csv"
"$ATTN" random --shape 9,4 --seed 2 --format csv | awk -F, -v OFS=, '{ for (i = 1; i <= NF; i++) $i *= 3 } 1' > "$T/k.csv"
"$ATTN" random --shape 9,3 --seed 3 --format csv > "$T/v.csv"

# reference Q K V CAP CAUSAL(0 none, 1 top-left, 2 bottom-right) L R (-1 = unbounded) WHAT
# (capped | context): the float64 definition, one number per line per row.
reference() {
    awk -F, -v cap="$4" -v causal="$5" -v L="$6" -v R="$7" -v what="$8" '
        FILENAME == ARGV[1] { nq++; for (c = 1; c <= NF; c++) q[nq, c] = $c; d = NF; next }
        FILENAME == ARGV[2] { nk++; for (c = 1; c <= NF; c++) k[nk, c] = $c; next }
        { nv++; for (c = 1; c <= NF; c++) v[nv, c] = $c; dv = NF }
        function tanh_(x) { if (x > 20) return 1; if (x < -20) return -1; e = exp(2 * x); return (e - 1) / (e + 1) }
        END {
            scale = 1 / sqrt(d)
            for (i = 0; i < nq; i++) {
                p = i + (causal == 2 ? nk - nq : 0); mx = -1e300; line = ""
                for (j = 0; j < nk; j++) {
                    s = 0; for (c = 1; c <= d; c++) s += q[i + 1, c] * k[j + 1, c]
                    s *= scale; if (cap > 0) s = cap * tanh_(s / cap)
                    line = line (j ? "," : "") sprintf("%.9g", s)
                    ok[j] = (causal == 0 || j <= p) && (L < 0 || j >= p - L) && (R < 0 || j <= p + R)
                    z[j] = s; if (ok[j] && s > mx) mx = s
                }
                if (what == "capped") { print line; continue }
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

# Gemma 2's pairing: a softcap and a causal sliding window, fused (context alone) and
# materialised (with the weights).
reference "$T/q.csv" "$T/k.csv" "$T/v.csv" 2 2 2 -1 context > "$T/want"
run attend "${qkv[@]}" --softcap 2 --causal=bottom-right --window 2
expect_code 0 "softcap 2 with a causal window of 3 keys"
expect_close "$T/want" "$T/out" 2e-6 "fused context: softcap 2, bottom-right causal, window 2"
run attend "${qkv[@]}" --softcap 2 --causal=bottom-right --window 2 --show weights,context
sed -n '/^# context/,$p' "$T/out" > "$T/ctx"
expect_close "$T/want" "$T/ctx" 2e-6 "materialised context: softcap 2, bottom-right causal, window 2"

# One-sided windows, Tq != Tk, no causal rule: p = i.
for w in "0:3 0 3" "1:0 1 0" ":2 -1 2" "2: 2 -1"; do
    read -r opt left right <<<"$w"  # (not `set --`: run.sh's own arguments would change)
    reference "$T/q.csv" "$T/k.csv" "$T/v.csv" 0 0 "$left" "$right" context > "$T/want"
    run attend "${qkv[@]}" --window "$opt"
    expect_code 0 "--window $opt"
    expect_close "$T/want" "$T/out" 2e-6 "context with --window $opt (no causal rule)"
done

# --show capped: C·tanh(scale·q·k / C) for every cell, masked or not.
reference "$T/q.csv" "$T/k.csv" "$T/v.csv" 0.5 1 1 -1 capped > "$T/want"
run attend "${qkv[@]}" --softcap 0.5 --causal --window 1 --show capped
expect_code 0 "--show capped"
expect_close "$T/want" "$T/out" 1e-6 "--show capped is C·tanh(x/C) of the scaled scores, every cell"

# A window wider than the keys changes nothing, bit for bit.
run attend "${qkv[@]}" --causal
cp "$T/out" "$T/plain"
run attend "${qkv[@]}" --causal --window 100:100
if cmp -s "$T/plain" "$T/out"; then pass; else fail "--window 100:100 over 9 keys differs from no window"; fi

# Rows the window leaves without a key follow --masked-rows (6 queries, 9 keys, window 0:0 with
# bottom-right causal sees key i + 3: none masked; top-left with a right-only window of 0 past Tk).
"$ATTN" random --shape 12,4 --seed 4 --format csv > "$T/q12.csv"
run attend -q "$T/q12.csv" -k "$T/k.csv" -v "$T/v.csv" --format csv --window 0:0 --masked-rows nan
expect_code 0 "window 0:0 with Tq > Tk"
expect_err_has "3 query rows had every key masked" "the rows past the last key are counted as fully masked"
if [ "$(grep -c nan "$T/out")" = 3 ]; then pass; else fail "window 0:0: expected 3 NaN rows, got: $OUT"; fi

# --help states both options and the order of operations.
run attend --help
expect_out_has "--window L[:R]" "--help lists --window"
expect_out_has "--softcap C" "--help lists --softcap"
if tr -s ' \n' '  ' < "$T/out" | grep -qF "Order of operations: (RoPE on Q and K,) scale·s(q, k) (--score), softcap, + ALiBi + bias, masks (causal, window, --mask, --lengths, --segments) set -inf, softmax (with --sinks in the denominator), ·V"; then
    pass
else
    fail "--help does not state the order of operations"
fi

# A score that overflowed float32 (±inf from finite inputs: here q·k = 1e76 − 1e76 in float64
# terms, 0, but inf or NaN in float32) is an error, as without a softcap, never capped to ±C:
# split-K decoding (1 query), the fused kernel (5 queries) and the Tq×Tk path.
printf '1e38 1e38\n' > "$T/q1"
printf '1e38 1e38\n1 1\n1 1\n1 1\n1 1\n' > "$T/q5"
printf '1e38 -1e38\n1 1\n' > "$T/k2"
for q in q1 q5; do
    for show in context weights capped; do
        run attend -q "$T/$q" -k "$T/k2" -v "$T/k2" --softcap 5 --show "$show"
        expect_code 1 "softcap over an overflowed score ($q, --show $show)"
        expect_err_has "the inputs overflow float32" "softcap over an overflowed score ($q, --show $show) is reported"
    done
done

# A softcap below 1 is applied per score (only c >= 1 is folded into the queries): a large but
# finite score is capped to ±C on every path and arch, not turned into an overflow by x/C (the
# fold made 1e10/1e-37 an infinity: exit 1 on the fused path and on the vector kernels' Tq×Tk path,
# ±C on the scalar one). The arches agree to the tanh's few ULP (tanh.hpp).
ALLCLOSE=$(dirname "$ATTN")/allclose
printf '1e3 1e3\n2 -1\n1 1\n-1e3 5\n1 2\n' > "$T/big5"
printf '1e3 -1e3\n' > "$T/q1"
for a in scalar auto; do
    for show in context weights capped; do
        for q in big5 q1; do
            run attend -q "$T/$q" -k "$T/big5" -v "$T/big5" --softcap 1e-37 --scale 1e4 --show "$show" --arch $a \
                --format npy -o "$T/tiny_cap_${a}_${show}_$q.npy"
            expect_code 0 "softcap 1e-37 over scores of 1e10 ($q, --show $show, --arch $a)"
        done
    done
done
for show in context weights capped; do
    for q in big5 q1; do
        if msg=$("$ALLCLOSE" "$T/tiny_cap_auto_${show}_$q.npy" "$T/tiny_cap_scalar_${show}_$q.npy" --rtol 1e-6 --atol 0 2>&1)
        then pass; else fail "softcap 1e-37: the scalar and the SIMD kernels differ ($q, --show $show): $msg"; fi
    done
done
run attend -q "$T/big5" -k "$T/big5" -v "$T/big5" --softcap 1e-37 --scale 1e4 --show capped --format csv
if grep -q '^9.9999[0-9]*e-38,9.9999[0-9]*e-38,9.9999[0-9]*e-38,-9.9999[0-9]*e-38,' "$T/out"; then pass
else fail "softcap 1e-37: scores of ±1e10 not capped to ±1e-37: $(head -2 "$T/out")"; fi
