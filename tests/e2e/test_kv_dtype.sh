# attend --kv-dtype (K/V stored as f32, f16, bf16 or q8_0), --show kv-error, random --dtype
# bf16, bench --kv-dtype bf16,q8_0 and BF16 safetensors K/V. Expected values were printed by
# /usr/bin/python3 with torch 1.13:
#   torch.manual_seed(123); x = torch.randn(3, 5).bfloat16()
#   print('%.9g' of every x.float() value, rows as csv lines)

cat >"$T/want" <<'EOF2'
-0.111328125,0.120605469,-0.369140625,-0.240234375,-1.1953125
0.208984375,-0.97265625,-0.75390625,0.32421875,-0.108398438
0.209960938,-0.390625,0.235351562,0.6640625,0.353515625
EOF2
run random --seed 123 --shape 3,5 --dtype bf16 --format csv
expect_code 0 "random --dtype bf16"
if diff "$T/want" "$T/out" >"$T/diff"; then pass; else fail "random --dtype bf16 is torch's randn(...).bfloat16(): $(head -n 4 "$T/diff")"; fi

# --kv-dtype bf16 / f16 on float32 K/V: the result of the rounded values given as float32 (the
# same bits: the kernels widen exactly), for the fused kernel, one decoding row and the
# materialised path.
"$ATTN" random --seed 2 --shape 2,40,24 --format npy -o "$T/q.npy"
"$ATTN" random --seed 3 --shape 2,300,24 --format npy -o "$T/k.npy"
"$ATTN" random --seed 4 --shape 2,300,24 --format npy -o "$T/v.npy"
for t in bf16 f16; do
    "$ATTN" random --seed 3 --shape 2,300,24 --dtype $t --format csv >"$T/k_$t.csv"
    "$ATTN" random --seed 4 --shape 2,300,24 --dtype $t --format csv >"$T/v_$t.csv"
    for extra in "" "--query-rows 5:6" "--show weights,context"; do
        run attend -q "$T/q.npy" -k "$T/k.npy" -v "$T/v.npy" --kv-dtype $t $extra --format csv
        expect_code 0 "attend --kv-dtype $t $extra"
        cp "$T/out" "$T/stored"
        run attend -q "$T/q.npy" -k "$T/k_$t.csv" -v "$T/v_$t.csv" $extra --format csv
        if cmp -s "$T/out" "$T/stored"; then pass; else fail "--kv-dtype $t $extra: not the rounded values' result"; fi
    done
done

# q8_0: --show keys,values print the stored (dequantised) values; given back as float32 they
# give the same context, bit for bit, decoding and prefill. Rows of 24 values: one block each,
# padded with zeros.
for extra in "" "--query-rows 7:8" "--heads 2"; do
    qk="$T/q.npy"; kk="$T/k.npy"; vk="$T/v.npy"
    run attend -q "$qk" -k "$kk" -v "$vk" --kv-dtype q8_0 $extra --show keys,values --format npy -o "$T/kv8"
    expect_code 0 "attend --kv-dtype q8_0 $extra --show keys,values"
    run attend -q "$qk" -k "$kk" -v "$vk" --kv-dtype q8_0 $extra --format csv
    expect_code 0 "attend --kv-dtype q8_0 $extra"
    cp "$T/out" "$T/stored"
    if [ -z "$extra" ] || [ "$extra" = "--query-rows 7:8" ]; then
        run attend -q "$qk" -k "$T/kv8/keys.npy" -v "$T/kv8/values.npy" $extra --format csv
        if cmp -s "$T/out" "$T/stored"; then pass; else fail "--kv-dtype q8_0 $extra: not the dequantised values' result"; fi
    fi
done
# q8_0 moves a value by at most half a step of its block's scale d = amax/127, plus what storing d
# in float16 costs (|q| <= 127 times half a float16 ulp of d): |k - k8| <= d·(0.5 + 127·2^-12).
run attend -q "$T/q.npy" -k "$T/k.npy" -v "$T/v.npy" --show keys --format csv
cp "$T/out" "$T/k32.csv"
run attend -q "$T/q.npy" -k "$T/k.npy" -v "$T/v.npy" --kv-dtype q8_0 --show keys --format csv
msg=$(paste -d, "$T/k32.csv" "$T/out" | awk -F, '{ n = NF / 2; amax = 0
        for (i = 1; i <= n; i++) { a = $i < 0 ? -$i : $i; if (a > amax) amax = a }
        for (i = 1; i <= n; i++) { d = $i - $(i + n); if (d < 0) d = -d
            if (d > amax / 127 * (0.5 + 127 / 4096) + 1e-7) { print "row " NR ", column " i ": " $i " stored as " $(i + n); exit } } }')
if [ -z "$msg" ]; then pass; else fail "q8_0 error beyond half a step: $msg"; fi

# --show kv-error: one record per batch item and head, growing from f16 to bf16 to q8_0.
prev=0
for t in f16 bf16 q8_0; do
    run attend -q "$T/q.npy" -k "$T/k.npy" -v "$T/v.npy" --kv-dtype $t --show kv-error --format json
    expect_code 0 "--show kv-error with --kv-dtype $t"
    expect_out_has '"context_rel_rms_diff"' "kv-error has the context's relative RMS difference"
    expect_out_has '"weights_max_abs_diff"' "kv-error has the weights' largest difference"
    err=$(grep -o '"context_rel_rms_diff": [-0-9.e+]*' "$T/out" | head -n 1 | awk '{ print $2 }')
    if awk -v e="$err" -v p="$prev" 'BEGIN { exit !(e > p && e < 0.05) }'; then pass; else
        fail "kv-error of $t: $err (previous type: $prev)"; fi
    prev=$err
done
run attend -q "$T/q.npy" -k "$T/k.npy" -v "$T/v.npy" --kv-dtype f32 --show kv-error --format json
if grep -o '"weights_max_abs_diff": [-0-9.e+]*' "$T/out" | awk '{ if ($2 != 0) bad = 1 } END { exit bad }'; then pass; else
    fail "--kv-dtype f32: the weights do not move"; fi
# nor the context: both contexts come from the same kind of run (once the fused kernel's against
# the materialised path's, 1e-7 apart)
if grep -Eo '"context_(max_abs|rel_rms)_diff": [-0-9.e+]*' "$T/out" | awk '{ n++; if ($2 != 0) bad = 1 } END { exit bad || n == 0 }'; then pass; else
    fail "--kv-dtype f32: the context does not move: $(grep -o '"context[^,]*' "$T/out" | head -2)"; fi

# A fully masked row is no difference under --masked-rows nan (NaN in both runs) as under zero: the
# live rows' largest, wherever the row is (in the middle, a NaN was lost to the rows after it)
"$ATTN" random --seed 11 --shape 4,8 --format npy -o "$T/q4.npy"
"$ATTN" random --seed 12 --shape 6,8 --format npy -o "$T/k6.npy"
"$ATTN" random --seed 13 --shape 6,8 --format npy -o "$T/v6.npy"
printf '1 1 1 1 1 1\n1 1 1 1 1 1\n0 0 0 0 0 0\n1 1 1 1 1 1\n' > "$T/mid_masked.txt"
for p in zero nan; do
    run attend -q "$T/q4.npy" -k "$T/k6.npy" -v "$T/v6.npy" --kv-dtype q8_0 --mask "$T/mid_masked.txt" --masked-rows $p \
        --show kv-error --format csv
    expect_code 0 "kv-error with a masked row under --masked-rows $p"
    cp "$T/out" "$T/kv_err_$p"
done
if cmp -s "$T/kv_err_zero" "$T/kv_err_nan" && ! grep -qi nan "$T/kv_err_nan" && grep -q '^weights_max_abs_diff,0\.00' "$T/kv_err_nan"
then pass; else fail "kv-error under --masked-rows nan: $(tr '\n' ' ' <"$T/kv_err_nan"), zero: $(tr '\n' ' ' <"$T/kv_err_zero")"; fi

# A float16 .npy with --kv-dtype f32 is widened; with --kv-dtype bf16 it is stored as bfloat16.
"$ATTN" random --seed 3 --shape 2,300,24 --dtype f16 --format npy -o "$T/k16.npy"
"$ATTN" random --seed 4 --shape 2,300,24 --dtype f16 --format npy -o "$T/v16.npy"
run attend -q "$T/q.npy" -k "$T/k16.npy" -v "$T/v16.npy" --kv-dtype f32 --format csv
cp "$T/out" "$T/stored"
run attend -q "$T/q.npy" -k "$T/k_f16.csv" -v "$T/v_f16.csv" --format csv
if cmp -s "$T/out" "$T/stored"; then pass; else fail "'<f2' K/V with --kv-dtype f32: not the same result"; fi
run attend -q "$T/q.npy" -k "$T/k16.npy" -v "$T/v16.npy" --kv-dtype bf16 --format csv
expect_code 0 "'<f2' K/V stored as bf16"

# A BF16 safetensors K and V (kept as bfloat16) give what their values as text give.
# The tensors: k (2, 3) BF16 = 1, -2, 0.5, 3, 0.25, -1; v likewise = 2, 0, -1, 1, 1.5, 0.5.
hdr='{"k":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},"v":{"dtype":"BF16","shape":[2,3],"data_offsets":[12,24]}}'
{ /usr/bin/env printf "\\x$(printf %02x ${#hdr})\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; printf '%s' "$hdr"
  /usr/bin/env printf '\x80\x3f\x00\xc0\x00\x3f\x40\x40\x80\x3e\x80\xbf'
  /usr/bin/env printf '\x00\x40\x00\x00\x80\xbf\x80\x3f\xc0\x3f\x00\x3f'; } >"$T/kv.safetensors"
printf '1 -2 0.5\n3 0.25 -1\n' >"$T/k.txt"
printf '2 0 -1\n1 1.5 0.5\n' >"$T/v.txt"
printf '0.5 1 -1\n' >"$T/q1.txt"
run attend -q "$T/q1.txt" -k "$T/kv.safetensors:k" -v "$T/kv.safetensors:v" --format csv
expect_code 0 "attend with BF16 safetensors K/V"
cp "$T/out" "$T/stored"
run attend -q "$T/q1.txt" -k "$T/k.txt" -v "$T/v.txt" --format csv
if cmp -s "$T/out" "$T/stored"; then pass; else fail "BF16 safetensors K/V: not their values' result"; fi

# bench: the four K/V types of one shape side by side, each named and with its bytes.
run bench --op attention --sizes 1x300 --d 16 --kv-dtype f32,bf16,q8_0 --repeat 2 --warmup 0 --format csv
expect_code 0 "bench --kv-dtype f32,bf16,q8_0"
kinds=$(awk -F, '$1 == "attention" { printf "%s:%s;", $19, ($22 == "" ? "-" : "r") }' "$T/out")
if [ "$kinds" = "f32:-;bf16:r;q8_0:r;" ]; then pass; else fail "f32, bf16 and q8_0 rows with ratios (got '$kinds')"; fi
run bench --op attention --sizes 2x4x1x300 --kv-heads 2 --d 40 --kv-dtype q8_0 --repeat 1 --warmup 0
expect_code 0 "bench --kv-dtype q8_0, grouped-query decoding, d not a multiple of 32"
expect_out_has "attention/q8_0" "the table marks q8_0 K/V"

# A float16 cache (--past-k/--past-v) before float32 keys and values: refused as two types, but
# with --kv-dtype both are joined and stored in that type.
"$ATTN" random --seed 5 --shape 2,3,24 --format npy -o "$T/k_new.npy"
"$ATTN" random --seed 6 --shape 2,3,24 --format npy -o "$T/v_new.npy"
"$ATTN" random --seed 7 --shape 2,3,24 --format npy -o "$T/q_new.npy"
run attend -q "$T/q_new.npy" -k "$T/k_new.npy" -v "$T/v_new.npy" --past-k "$T/k16.npy" --past-v "$T/v16.npy"
expect_code 3 "a float16 cache with float32 keys"
expect_err_has "differ in element type (f16 and f32): give both in one type, or --kv-dtype" "the message names both types"
run attend -q "$T/q_new.npy" -k "$T/k_new.npy" -v "$T/v_new.npy" --past-k "$T/k16.npy" --past-v "$T/v16.npy" --kv-dtype q8_0 --causal
expect_code 0 "a float16 cache with float32 keys, stored as q8_0"

# With --rope the keys are kept as --kv-dtype after their rotation, as an engine caches them:
# --show keys is round(rope(K)) (the f32 run's rotated keys, stored as the type), and decoding
# the last token from that cache is the full run's last row (K was rounded before the rotation,
# and again when the printed cache came back: q8_0 decoding moved by 5e-3).
"$ATTN" random --seed 8 --shape 1,6,32 --format npy -o "$T/rq.npy"
"$ATTN" random --seed 9 --shape 1,6,32 --format npy -o "$T/rk.npy"
"$ATTN" random --seed 10 --shape 1,6,32 --format npy -o "$T/rv.npy"
for n in rq rk rv; do
    "$ATTN" attend -q "$T/$n.npy" -k "$T/$n.npy" -v "$T/$n.npy" --show queries --query-rows 0:5 --format npy -o "$T/${n}5.npy"
    "$ATTN" attend -q "$T/$n.npy" -k "$T/$n.npy" -v "$T/$n.npy" --show queries --query-rows 5:6 --format npy -o "$T/${n}1.npy"
done
"$ATTN" attend -q "$T/rq.npy" -k "$T/rk.npy" -v "$T/rv.npy" --rope 10000 --show keys --format npy -o "$T/rot32.npy"
for t in f16 bf16 q8_0; do
    O=(--rope 10000 --causal --kv-dtype $t)
    "$ATTN" attend -q "$T/rq.npy" -k "$T/rk.npy" -v "$T/rv.npy" "${O[@]}" --show keys --format npy -o "$T/rot_$t.npy"
    "$ATTN" attend -q "$T/rq.npy" -k "$T/rot32.npy" -v "$T/rv.npy" --kv-dtype $t --show keys --format npy -o "$T/ref_$t.npy"
    if cmp -s "$T/rot_$t.npy" "$T/ref_$t.npy"; then pass; else fail "--rope --kv-dtype $t: keys are not round(rope(K))"; fi
    "$ATTN" attend -q "$T/rq.npy" -k "$T/rk.npy" -v "$T/rv.npy" "${O[@]}" --show context --format npy -o "$T/full_$t.npy"
    "$ATTN" attend -q "$T/rq5.npy" -k "$T/rk5.npy" -v "$T/rv5.npy" "${O[@]}" --show keys,values --format npz -o "$T/c5.npz"
    run attend -q "$T/rq1.npy" -k "$T/rk1.npy" -v "$T/rv1.npy" "${O[@]}" --past-k "$T/c5.npz:keys" --past-v "$T/c5.npz:values" \
        --show context --format npy -o "$T/step_$t.npy"
    expect_code 0 "--rope --kv-dtype $t: the last token from the cache"
    "$ATTN" attend -q "$T/full_$t.npy" -k "$T/full_$t.npy" -v "$T/full_$t.npy" --show queries --query-rows 5:6 --format npy -o "$T/full_last.npy"
    if "$(dirname "$ATTN")/allclose" "$T/step_$t.npy" "$T/full_last.npy" --atol 1e-6 --rtol 1e-6 2>"$T/err"; then pass
    else fail "--rope --kv-dtype $t: decoding from the cache is not the full run: $(cat "$T/err")"; fi
done

# --show kv-error with --rope: the float32 reference keeps the rotated keys unrounded (it
# rounded them too, and the weights' difference, which only K's rounding makes here, was 0).
"$ATTN" random --seed 3 --shape 4,8 --dtype f16 -o "$T/ke_v16.npy"
"$ATTN" random --seed 4 --shape 4,8 -o "$T/ke_q.npy"
run attend -q "$T/ke_q.npy" -k "$T/ke_q.npy" -v "$T/ke_v16.npy" --kv-dtype f16 --rope 10000 --show kv-error --format csv
expect_code 0 "--show kv-error with --rope"
if awk -F, '$1 == "weights_max_abs_diff" { exit !($2 > 1e-6) }' "$T/out"; then pass
else fail "--show kv-error with --rope: K's rounding is not in the weights' difference: $OUT"; fi

# With -x, --kv-dtype keeps the projected K and V as engines cache them (it was refused): the
# same bits as projecting first (--show queries,keys,values) and giving them as -q/-k/-v with
# --kv-dtype, for grouped-query heads, with RoPE (K kept after its rotation) and causal; kv-error too.
"$ATTN" random --seed 5 --shape 2,6,16 --format npy -o "$T/px.npy"
seed=6
for w in wq:32 wk:16 wv:16; do
    "$ATTN" random --seed $((seed++)) --shape "16,${w#*:}" --format npy -o "$T/p${w%:*}.npy"
done
proj=(-x "$T/px.npy" --wq "$T/pwq.npy" --wk "$T/pwk.npy" --wv "$T/pwv.npy" --heads 4 --kv-heads 2)
"$ATTN" attend "${proj[@]}" --show queries,keys,values --format npy -o "$T/proj/"
for t in bf16 q8_0 f16; do
    for extra in "" "--rope 10000" "--causal"; do
        # shellcheck disable=SC2086  # $extra is words
        "$ATTN" attend -q "$T/proj/queries.npy" -k "$T/proj/keys.npy" -v "$T/proj/values.npy" --kv-dtype $t $extra \
            --show context,keys,values --format npz -o "$T/by_qkv.npz"
        # shellcheck disable=SC2086
        "$ATTN" attend "${proj[@]}" --kv-dtype $t $extra --show context,keys,values --format npz -o "$T/by_x.npz"
        if cmp -s "$T/by_qkv.npz" "$T/by_x.npz"; then pass; else fail "-x --kv-dtype $t $extra differs from -q/-k/-v"; fi
    done
    "$ATTN" attend -q "$T/proj/queries.npy" -k "$T/proj/keys.npy" -v "$T/proj/values.npy" --kv-dtype $t --show kv-error --format csv >"$T/e1"
    "$ATTN" attend "${proj[@]}" --kv-dtype $t --show kv-error --format csv >"$T/e2"
    if [ -s "$T/e1" ] && cmp -s "$T/e1" "$T/e2"; then pass; else fail "-x --kv-dtype $t: kv-error differs"; fi
done

# With a cache as well (it was refused): the present cache (past ++ projected) is kept as
# --kv-dtype, the same bits as -q/-k/-v with --past-k/--past-v and --kv-dtype; and two steps
# through the cache give the last rows of one run on all the tokens (to float rounding).
"$ATTN" random --seed 9 --shape 2,2,16 --format npy -o "$T/px2.npy"
"$ATTN" concat "$T/px.npy" "$T/px2.npy" --axis 1 --format npy -o "$T/pxall.npy"
weights=("${proj[@]:2}")  # proj without its -x
"$ATTN" attend -x "$T/px2.npy" "${weights[@]}" --show queries,keys,values --format npy -o "$T/proj2/"
for t in bf16 q8_0 f16; do
    for extra in "--causal" "--causal --rope 10000"; do
        # shellcheck disable=SC2086
        "$ATTN" attend "${proj[@]}" --kv-dtype $t $extra --show keys,values --format npy -o "$T/cache/"
        cache=(--past-k "$T/cache/keys.npy" --past-v "$T/cache/values.npy" --kv-dtype "$t")
        # shellcheck disable=SC2086
        "$ATTN" attend -q "$T/proj2/queries.npy" -k "$T/proj2/keys.npy" -v "$T/proj2/values.npy" "${cache[@]}" $extra \
            --show context,keys,values --format npz -o "$T/by_qkv.npz"
        # shellcheck disable=SC2086
        "$ATTN" attend -x "$T/px2.npy" "${weights[@]}" "${cache[@]}" $extra --show context,keys,values --format npz \
            -o "$T/by_x.npz"
        if cmp -s "$T/by_qkv.npz" "$T/by_x.npz"; then pass; else fail "-x --kv-dtype $t $extra with a cache differs from -q/-k/-v"; fi
        # shellcheck disable=SC2086
        "$ATTN" attend -q "$T/proj2/queries.npy" -k "$T/proj2/keys.npy" -v "$T/proj2/values.npy" "${cache[@]}" $extra \
            --show kv-error --format csv >"$T/e1"
        # shellcheck disable=SC2086
        "$ATTN" attend -x "$T/px2.npy" "${weights[@]}" "${cache[@]}" $extra --show kv-error --format csv >"$T/e2"
        if [ -s "$T/e1" ] && cmp -s "$T/e1" "$T/e2"; then pass; else fail "-x --kv-dtype $t $extra with a cache: kv-error differs"; fi
        # shellcheck disable=SC2086
        "$ATTN" attend -x "$T/pxall.npy" "${weights[@]}" --kv-dtype $t $extra --query-rows 6:8 --show context \
            --format npy -o "$T/all.npy"
        "$ATTN" concat "$T/by_x.npz:context" --format npy -o "$T/step.npy"
        if "$(dirname "$ATTN")/allclose" "$T/step.npy" "$T/all.npy" --atol 1e-5 --rtol 1e-5 2>"$T/err"; then pass
        else fail "-x --kv-dtype $t $extra: two steps through the cache differ from one run: $(cat "$T/err")"; fi
    done
done
