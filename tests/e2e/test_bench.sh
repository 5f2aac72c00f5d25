# attn bench on batched, multi-head and grouped-query shapes: --sizes BxHxTqxTk, --kv-heads,
# --op mha; shapes and options it cannot time are refused with a usage error.
# e2e: not under a sanitizer: timing runs of the kernels (bench's own code runs under it in test_bench_variants.sh)

run bench --op attention --sizes 2x4x33x40 --kv-heads 2 --d 8 --repeat 1 --warmup 0 --format csv
expect_code 0 "bench --op attention BxHxTqxTk with --kv-heads"
expect_out_has "attention,2x4:2x33x40x8," "the shape names batch, heads:kv-heads, Tq, Tk and d"

run bench --op attention --sizes 2x4x33x40 --d 8 --materialized --causal --repeat 1 --warmup 0 --format json
expect_code 0 "bench --op attention batched, materialized, causal"
expect_out_has '"shape": "2x4x33x40x8"' "batched shape in json"

run bench --op mha --sizes 1x2x16x24 --d 4 --repeat 1 --warmup 0 --format csv
expect_code 0 "bench --op mha (cross-attention: Tq != Tk)"
expect_out_has "mha,1x2x16x24x4," "mha row"

run bench --op mha --repeat 1 --warmup 0 --sizes 2x2x8x8 --kv-heads 1 --d 4
expect_code 0 "bench --op mha grouped-query (one kv head)"
expect_out_has "mha" "table row for mha"

run bench --op attention --sizes 2x6x8x8 --kv-heads 4 --repeat 1
expect_code 2 "--kv-heads that does not divide the heads"
expect_err_has "invalid --kv-heads 4" "message names the option"

run bench --op attention --sizes 2x6x8 --repeat 1
expect_code 2 "three dimensions are not an attention shape"
expect_err_has "expected N, TqxTk or BxHxTqxTk" "message lists the attention shapes"

run bench --op matmul --sizes 4 --kv-heads 2 --repeat 1
expect_code 2 "--kv-heads with matmul is refused"
expect_out_empty "no output for a refused --kv-heads"

# Few query rows are memory-bound: the table and json report the bytes moved per second.
run bench --op attention --sizes 2x4x1x300 --kv-heads 2 --d 8 --repeat 1 --warmup 0
expect_code 0 "bench decode shape (Tq=1)"
expect_out_has "memory-bound" "the table has a memory-bound block for Tq <= 4"
expect_out_has "GB/s" "memory-bound block in GB/s"

run bench --op attention --sizes 1x3000 --d 16 --repeat 1 --warmup 0 --format json
expect_code 0 "bench decode shape, json"
expect_out_has '"gb_per_s_moved"' "json reports GB/s moved for a memory-bound case"

run bench --op attention --sizes 64 --d 8 --repeat 1 --warmup 0
expect_code 0 "bench prefill shape"
if grep -qF -- "memory-bound" "$T/out"; then fail "no memory-bound block for 64 query rows"; else pass; fi

# Both attention paths side by side, each plain, with a mask and with a bias (one run).
run bench --op attention --sizes 40x50 --d 8 --paths fused,materialized --mask --bias --repeat 1 --warmup 0 --format json
expect_code 0 "bench --paths fused,materialized --mask --bias"
expect_out_has '"command": "attention 40x50x8 fused mask"' "a masked fused case"
expect_out_has '"command": "attention 40x50x8 materialized bias"' "a biased materialized case"
expect_out_has '"command": "attention 40x50x8 materialized",' "the plain materialized case"

run bench --op attention --sizes 2x3x20x30 --d 4 --mask --repeat 1 --warmup 0
expect_code 0 "bench batched with a mask shared by every head"
expect_out_has "attention/mask" "the table labels the masked case"

run bench --op attention --paths fused,sideways --repeat 1
expect_code 2 "an unknown --paths entry"
expect_err_has "invalid --paths entry 'sideways'" "message names the entry"

run bench --op attention --paths fused --materialized --repeat 1
expect_code 2 "--paths with --materialized"

run bench --op matmul --mask --repeat 1
expect_code 2 "--mask with matmul is refused"

# mha projects K and V itself, in float32: --kv-dtype f16 was ignored (an f32 row, exit 0).
run bench --op mha --sizes 1x2x8x8 --d 4 --kv-dtype f16 --repeat 1
expect_code 2 "--kv-dtype with --op mha is refused"
expect_err_has "--kv-dtype applies to --op attention" "--kv-dtype with mha: the message says where it applies"

run bench --op attention --sizes 32 --d 8 --mask --bias --kv-dtype f16 --repeat 1 --warmup 0 --format csv
expect_code 0 "bench --mask --bias --format csv"
expect_out_has "fraction_of_peak_cpu,kv_dtype,mask,bias" "the csv header names the K/V type, mask and bias"
expect_out_has ",f16,false,false" "the plain row"
expect_out_has ",f16,true,false" "the masked row is told apart"
expect_out_has ",f16,false,true" "the bias row is told apart"
expect_out_has "kv_dtype,mask,bias,ratio" "the csv header ends with the ratio to the first case of the shape"
ratios=$(awk -F, '$1 == "attention" { printf "%s;", $22 }' "$T/out")
if [[ "$ratios" =~ ^\;[0-9.e+-]+\;[0-9.e+-]+\;$ ]]; then pass; else fail "ratios: none for the plain case, one each for mask and bias (got '$ratios')"; fi

# Cases of one shape are timed in turn and compared with its first case; a new shape starts afresh.
run bench --op attention --sizes 24,40 --d 8 --paths fused,materialized --mask --repeat 2 --warmup 0 --format json
expect_code 0 "bench two shapes, two paths, with a mask"
n=$(grep -o '"ratio_to_first_of_shape": [0-9.e+-]*,' "$T/out" | wc -l)
if [ "$n" -eq 6 ]; then pass; else fail "3 ratios per shape (mask, materialized, materialized mask), got $n"; fi
run bench --op attention --sizes 24 --d 8 --mask --bias --repeat 2 --warmup 0
expect_out_has "ratio: the median over rounds" "the table explains the ratio column"

# csv carries what json has: the read bandwidth of --peak (it had only the FMA peak rows) and a
# decoding step's GB/s against it (json's gb_per_s_moved; csv had no such column). Every row
# has the header's 27 fields (the variant's two last), the new ones last.
run bench --op attention --sizes 1x256 --d 8 --repeat 1 --warmup 0 --peak --format csv
expect_code 0 "bench --peak --format csv with a decoding case"
expect_out_has "ratio,gb_per_s_moved,fraction_of_bandwidth,bandwidth_compared" "csv header: the bandwidth columns last"
if awk -F, 'NF != 27 { bad = 1 } END { exit bad }' "$T/out"; then pass; else fail "csv rows of another width: $(awk -F, '{print NF}' "$T/out" | sort -u | tr '\n' ' ')"; fi
n=$(awk -F, '$1 == "read_bandwidth" && $23 > 0' "$T/out" | wc -l)
if [ "$n" -ge 2 ]; then pass; else fail "csv: read_bandwidth rows with GB/s (got $n)"; fi
if awk -F, '$1 == "attention" && $23 > 0 && $24 > 0 && ($25 == "in cache" || $25 == "memory") { ok = 1 } END { exit !ok }' "$T/out"
then pass; else fail "csv: the decoding row's GB/s, fraction and what it is compared with: $(grep '^attention' "$T/out")"; fi

# A list item given twice counts once (as --show does): --paths fused,fused timed two identical rows,
# and --sizes 16,16 still did (from an audit).
run bench --op attention --sizes 16,16 --d 8,8 --paths fused,fused --kv-dtype f16,f16 --repeat 1 --warmup 0 --format csv
expect_code 0 "bench with repeated list items"
n=$(grep -c '^attention,' "$T/out")
if [ "$n" = 1 ]; then pass; else fail "--paths fused,fused --kv-dtype f16,f16: $n rows, expected 1"; fi

# ---- "% peak" and "% bw" are always filled: without --peak the limits are measured quickly ------
run bench --op attention --sizes 1x4096,64 -d 64 --repeat 2 --warmup 0 --format csv
expect_code 0 "bench without --peak, csv"
peak_col=$(head -1 "$T/out" | tr ',' '\n' | grep -nx fraction_of_peak | cut -d: -f1)
bw_col=$(head -1 "$T/out" | tr ',' '\n' | grep -nx fraction_of_bandwidth | cut -d: -f1)
compute_row=$(grep '^attention,64x64x64,' "$T/out")
decode_row=$(grep '^attention,1x4096x64,' "$T/out")
if grep -q 'kernels: scalar' <<<"$("$ATTN" --version)"; then pass; pass  # the scalar kernels have no FMA probe
else
    v=$(cut -d, -f"$peak_col" <<<"$compute_row")
    if awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; then pass; else fail "bench without --peak: fraction_of_peak empty: $compute_row"; fi
    if grep -q '^fma_peak,' "$T/out"; then pass; else fail "bench without --peak: the quick FMA peak is not listed"; fi
fi
v=$(cut -d, -f"$bw_col" <<<"$decode_row")
if awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; then pass; else fail "bench without --peak: fraction_of_bandwidth empty: $decode_row"; fi
run bench --op softmax --sizes 8 --repeat 1 --warmup 0 --format json
expect_out_has '"limits": "quick"' "bench without --peak, json: the limits are quick"

# ---- where the fused attention's time goes: the products at the FMA peak, the exponentials at the
# exp kernel's rate (measured with the peak), everything else; only for plain fused prefill cases.
run bench --op attention --sizes 64,1x4096 -d 16 --mask --repeat 2 --warmup 0
expect_code 0 "bench, table with the time split"
if grep -q 'kernels: scalar' <<<"$("$ATTN" --version)"; then pass; pass; pass  # no FMA probe, no split
else
    line=$(grep '^  attention 64x64x16: ' "$T/out")
    # 64·64 exponentials; the three fractions add up to 100% (rounding: ±2), or the rest is 0
    fractions=$(grep -o '[0-9]\+%' <<<"$line" | tr -d '%' | tr '\n' ' ')
    if [[ $line == *"4.1e+03 exponentials"* ]] &&
        awk -v f="$fractions" 'BEGIN { k = split(f, w, " "); s = w[1] + w[2] + w[3]; exit !(k == 3 && s >= 98 && s <= 102) }'
    then pass; else fail "the time split of attention 64x64x16: '$line'"; fi
    n=$(grep -c '^  attention' "$T/out")
    if [ "$n" = 1 ]; then pass; else fail "the time split lists the masked or decoding case too: $n lines"; fi
    run bench --op attention --sizes 64 -d 16 --repeat 1 --warmup 0 --format json
    if grep -Eq '"exps_per_second": [1-9]' "$T/out"; then pass; else fail "json: the peak's exps_per_second: $(grep exps "$T/out")"; fi
fi
run bench --op softmax --sizes 8 --repeat 1 --warmup 0
expect_out_has "a quick probe of this arch and thread count" "bench without --peak, table: the footnote says the probe was quick"

# bench times a softcap beside the plain case, so 0 is refused: a bad value's message does not
# offer it (it said "or 0 for none"; found by a help audit)
run bench --op attention --sizes 8 --softcap -1 --repeat 1
expect_code 2 "bench --softcap -1"
expect_err_has "expected a positive number C" "bench --softcap -1: the message"
if [[ $ERR == *"0 for none"* ]]; then fail "bench --softcap -1 offers 0: $ERR"; else pass; fi

# A decoding step's bytes (gb_per_s_moved * median): the K and V rows its query sees, as stored
# (q8_0: whole blocks of 32, 34 bytes each; float16: rows padded to 32 elements), and Q and the
# output (4*2*d). d = 80: q8_0 rows of 102 bytes (counted 85), float16 rows of 192 (160). With
# a top-left causal rule the one query sees one key (all of K and V were counted).
run bench --op attention --sizes 1x1000 --d 80 --kv-dtype q8_0,f16 --repeat 1 --warmup 0 --format json
expect_code 0 "bench decode q8_0 and f16 at d=80"
moved() {  # the bytes of each result, in order, to 1 in 10^4 (json prints 6 significant digits)
    awk '/"median"/ { m = $0; sub(/.*"median": /, "", m); sub(/,.*/, "", m) }
         /"gb_per_s_moved"/ { g = $0; sub(/.*"gb_per_s_moved": /, "", g); sub(/,.*/, "", g); printf "%.4g ", g * m * 1e9 }' <<<"$OUT"
}
[ "$(moved)" = "2.046e+05 3.846e+05 " ] && pass || fail "decode bytes at d=80: $(moved), expected 204640 384640"
run bench --op attention --sizes 1x1000 --d 80 --kv-dtype q8_0 --causal --repeat 1 --warmup 0 --format json
[ "$(moved)" = "844 " ] && pass || fail "causal decode bytes: $(moved), expected 844 (the one key the query sees)"
# --causal=bottom-right: a decoding step's query sees every key (its position is the last)
run bench --op attention --sizes 1x1000 --d 80 --kv-dtype q8_0 --causal=bottom-right --repeat 1 --warmup 0 --format json
[ "$(moved)" = "2.046e+05 " ] && pass || fail "bottom-right causal decode bytes: $(moved), expected 204640"
expect_out_has '"command": "attention 1x1000x80 causal bottom-right fused q8_0"' "json names the alignment"
run bench --op attention --sizes 1x1000 --d 80 --causal=bottom-right --repeat 1 --warmup 0
expect_out_has "attention/cbr " "the table names the alignment"
run bench --op attention --sizes 8x8 --d 8 --causal=diagonal --repeat 1 --warmup 0
expect_code 2 "an unknown --causal alignment"
