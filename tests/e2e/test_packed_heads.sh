# -q/-k/-v with --heads H [--kv-heads G]: inputs ([B,] T, H·d) hold the heads side by side (ONNX
# Attention's 3-D form, PyTorch's (B, T, H·d) before .view(B, T, H, d)) and are split into heads.
# Expected: the same heads given as separate ([B,] H, T, d) tensors, whose path the float64
# oracle and the worked examples check; the results must be the same bits.

# pack FILE: attn's csv of a ([B,] H, T, d) tensor as ([B,] T, H·d) (each row's heads side by side).
pack() {
    awk '/^# / { if (match($0, /\[[0-9]+, [0-9]+\]/)) { split(substr($0, RSTART + 1, RLENGTH - 2), i, ", "); b = i[1]; h = i[2]; batched = 1 }
                 else { match($0, /\[[0-9]+\]/); b = 0; h = substr($0, RSTART + 1, RLENGTH - 2) }
                 t = 0; if (b + 1 > B) B = b + 1; if (h + 1 > H) H = h + 1; next }
         NF { row[b, t] = row[b, t] (h > 0 ? "," : "") $0; t++; if (t > T) T = t }
         END { for (bb = 0; bb < B; bb++) { if (batched) print "# packed [" bb "]"   # (H, T, d) packs to a plain (T, H·d)
                                            for (tt = 0; tt < T; tt++) print row[bb, tt]; print "" } }' "$1"
}
same_result() {  # same_result DESCRIPTION SPLIT_ARGS -- PACKED_ARGS: --show weights,context of both, as npy
    local what=$1; shift
    local split=() packed=()
    while [ "$1" != -- ]; do split+=("$1"); shift; done; shift; packed=("$@")
    for item in weights context; do
        rm -rf "$T/s.npy" "$T/p.npy"
        "$ATTN" attend "${split[@]}" --show "$item" --format npy -o "$T/s.npy" 2>"$T/err" || { fail "$what: the split heads failed: $(cat "$T/err")"; continue; }
        run attend "${packed[@]}" --show "$item" --format npy -o "$T/p.npy"
        expect_code 0 "$what: $item"
        if cmp -s "$T/s.npy" "$T/p.npy"; then pass; else fail "$what: $item differs from the split heads'"; fi
    done
}

# B=2, H=3, T=5, d=4, self-attention on the packed tensor.
"$ATTN" random --seed 2 --shape 2,3,5,4 --format csv >"$T/q4.csv"
pack "$T/q4.csv" >"$T/qp.csv"
same_result "packed (2, 5, 12), --heads 3" -q "$T/q4.csv" -k "$T/q4.csv" -v "$T/q4.csv" -- \
    -q "$T/qp.csv" -k "$T/qp.csv" -v "$T/qp.csv" --heads 3
same_result "packed, causal" -q "$T/q4.csv" -k "$T/q4.csv" -v "$T/q4.csv" --causal -- \
    -q "$T/qp.csv" -k "$T/qp.csv" -v "$T/qp.csv" --heads 3 --causal
# Grouped-query: 4 query heads over 2 key/value heads, cross-attention (Tq 3, Tk 6), d 5.
"$ATTN" random --seed 3 --shape 2,4,3,5 --format csv >"$T/gq4.csv"
"$ATTN" random --seed 4 --shape 2,2,6,5 --format csv >"$T/gk4.csv"
"$ATTN" random --seed 5 --shape 2,2,6,5 --format csv >"$T/gv4.csv"
for f in gq4 gk4 gv4; do pack "$T/$f.csv" >"$T/${f%4}p.csv"; done
same_result "packed grouped-query --heads 4 --kv-heads 2" -q "$T/gq4.csv" -k "$T/gk4.csv" -v "$T/gv4.csv" -- \
    -q "$T/gqp.csv" -k "$T/gkp.csv" -v "$T/gvp.csv" --heads 4 --kv-heads 2
# Without a batch: (T, H·d) against (H, T, d).
"$ATTN" random --seed 6 --shape 2,7,3 --format csv >"$T/h3.csv"
pack "$T/h3.csv" >"$T/hp.csv"
same_result "packed (7, 6), --heads 2" -q "$T/h3.csv" -k "$T/h3.csv" -v "$T/h3.csv" -- \
    -q "$T/hp.csv" -k "$T/hp.csv" -v "$T/hp.csv" --heads 2
# Float16 keys and values stay float16 when packed: (1, 6, 8) f16 .npy split into 2 heads; the
# split float32 copy of the same (exact) values gives the weights to float32 rounding.
"$ATTN" random --seed 7 --shape 1,6,8 --dtype f16 --format npy -o "$T/kv16.npy"
"$ATTN" random --seed 8 --shape 1,2,6,4 --format csv >"$T/q16.csv"
pack "$T/q16.csv" >"$T/q16p.csv"
"$ATTN" concat "$T/kv16.npy" --format csv | awk 'NF && !/^#/' >"$T/kv16.rows"
awk -F, '{ a = $1; for (i = 2; i <= 4; i++) a = a "," $i; b = $5; for (i = 6; i <= 8; i++) b = b "," $i; h0[NR] = a; h1[NR] = b }
         END { print "# kv [0, 0]"; for (r = 1; r <= NR; r++) print h0[r]; print ""; print "# kv [0, 1]"; for (r = 1; r <= NR; r++) print h1[r] }' \
    "$T/kv16.rows" >"$T/kv4.csv"
run attend -q "$T/q16p.csv" -k "$T/kv16.npy" -v "$T/kv16.npy" --heads 2 --show weights --format csv
expect_code 0 "packed float16 keys and values"
printf '%s\n' "$OUT" | awk 'NF && !/^#/' >"$T/w16"
"$ATTN" attend -q "$T/q16.csv" -k "$T/kv4.csv" -v "$T/kv4.csv" --show weights --format csv | awk 'NF && !/^#/' >"$T/w32"
expect_close "$T/w32" "$T/w16" 1e-6 "packed float16 keys and values: the weights of the split heads"

# Refusals: columns that do not split, a 4-D input with --heads, --kv-heads alone.
run attend -q "$T/qp.csv" -k "$T/qp.csv" -v "$T/qp.csv" --heads 5
expect_code 3 "packed: 12 columns, --heads 5"
expect_err_has "not a multiple of --heads 5" "packed: 12 columns, --heads 5: message"
run attend -q "$T/gqp.csv" -k "$T/gkp.csv" -v "$T/gvp.csv" --heads 4 --kv-heads 4
expect_code 3 "packed: 10 key columns, --kv-heads 4"
expect_err_has "-k (2, 6, 10) has 10 columns, not a multiple of --heads 4" "packed: --kv-heads 4: message"
run attend -q "$T/gqp.csv" -k "$T/gkp.csv" -v "$T/gvp.csv" --heads 4 --kv-heads 3
expect_code 2 "packed: --heads 4 --kv-heads 3"
expect_err_has "--heads 4 is not a multiple of --kv-heads 3" "packed: --kv-heads 3: the rule named first"
run attend -q "$T/q4.csv" -k "$T/q4.csv" -v "$T/q4.csv" --heads 3
expect_code 3 "--heads with 4-D -q"
expect_err_has "a 4-D input already has them" "--heads with 4-D -q: message"
run attend -q "$T/qp.csv" -k "$T/qp.csv" -v "$T/qp.csv" --kv-heads 3
expect_code 2 "--kv-heads without --heads"
run attend -q "$T/qp.csv" -k "$T/qp.csv" -v "$T/qp.csv" --heads 3 --wq "$T/qp.csv"
expect_code 2 "--wq with -q/-k/-v still refused"

# --score general maps d_k: packed keys of another width than the queries' are not grouped-query
# heads, and the "give --kv-heads" hint of dot scores does not apply (it refused this run).
"$ATTN" random --seed 1 --shape 3,8 -o "$T/gq.npy" </dev/null
"$ATTN" random --seed 2 --shape 3,4 -o "$T/gk.npy" </dev/null
"$ATTN" random --seed 3 --shape 4,2 -o "$T/gwa.npy" </dev/null
run attend -q "$T/gq.npy" -k "$T/gk.npy" -v "$T/gk.npy" --heads 2 --score general --wa "$T/gwa.npy"
expect_code 0 "packed heads with --score general and keys of another width"
"$ATTN" attend -q "$T/gq.npy" -k "$T/gk.npy" -v "$T/gk.npy" --heads 2 --kv-heads 2 --score general --wa "$T/gwa.npy" \
    >"$T/g_kv2" 2>/dev/null </dev/null
if cmp -s "$T/out" "$T/g_kv2"; then pass; else fail "--score general packed: not the run with --kv-heads 2 given"; fi

# --kv-dtype of the type K and V are read in (f32 of float32 files, f16 of '<f2' ones) is the run
# without it: packed keys were left packed while marked split ("-k has d_k=8 but -q has d_k=4").
"$ATTN" random --seed 4 --shape 6,8 -o "$T/pk.npy" </dev/null
"$ATTN" random --seed 5 --shape 6,8 --dtype f16 -o "$T/pk16.npy" </dev/null
for kv in "pk.npy f32" "pk16.npy f16"; do
    set -- $kv
    "$ATTN" attend -q "$T/gq.npy" -k "$T/$1" -v "$T/$1" --heads 2 --format npy -o "$T/kv_plain.npy" </dev/null
    run attend -q "$T/gq.npy" -k "$T/$1" -v "$T/$1" --heads 2 --kv-dtype "$2" --format npy -o "$T/kv_same.npy"
    expect_code 0 "packed heads with --kv-dtype $2 of $2 K/V"
    if cmp -s "$T/kv_plain.npy" "$T/kv_same.npy"; then pass; else fail "packed --kv-dtype $2 of $2 K/V: not the run without it"; fi
done
