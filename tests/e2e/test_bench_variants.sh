# attn bench's attention variants (--softcap, --window, --alibi, --sinks, --segments, --rope):
# each is timed as a case of its own next to the plain one, named in every format, with its ratio
# to the plain case and the fraction of cells the key rule leaves visible. Timings are not checked.

all_variants=(--softcap 30 --window 3 --alibi --sinks --segments 4 --rope 10000)

run bench --op attention --sizes 32 --d 8 --causal "${all_variants[@]}" --repeat 2 --warmup 0 --format csv
expect_code 0 "bench with every variant, csv"
expect_out_has "bandwidth_compared,variant,visible_fraction" "csv header: variant and visible_fraction last"
col=$(head -1 "$T/out" | tr ',' '\n' | grep -nx variant | cut -d: -f1)
vcol=$(head -1 "$T/out" | tr ',' '\n' | grep -nx visible_fraction | cut -d: -f1)
rcol=$(head -1 "$T/out" | tr ',' '\n' | grep -nx ratio | cut -d: -f1)
got=$(awk -F, -v c="$col" '$1 == "attention" { printf "%s;", $c }' "$T/out")
if [ "$got" = ";softcap=30;window=3;alibi=8;sinks;segments=4;rope=10000;" ]; then pass
else fail "csv variants: the plain row first, then one row per variant in option order (got '$got')"; fi
ratios=$(awk -F, -v c="$rcol" '$1 == "attention" { printf "%s;", ($c == "" ? "none" : "n") }' "$T/out")
if [ "$ratios" = "none;n;n;n;n;n;n;" ]; then pass; else fail "csv: a ratio to the plain row for each variant (got '$ratios')"; fi
# Visible cells, counted from the rule (not from attn): causal T=32 sees 32·33/2 of 32·32;
# the window 3 (causal) 3+... per row: min(i, 3) + 1; 4 causal documents of 8: 4·(8·9/2).
vis=$(awk -F, -v c="$vcol" -v r="$col" '$1 == "attention" { printf "%s=%s;", $r, $c }' "$T/out")
expected=$(awk 'BEGIN { w = 0; for (i = 0; i < 32; i++) w += (i < 3 ? i : 3) + 1;
    printf "=%.6g;softcap=30=%.6g;window=3=%.6g;alibi=8=%.6g;sinks=%.6g;segments=4=%.6g;rope=10000=%.6g;",
        528/1024, 528/1024, w/1024, 528/1024, 528/1024, 144/1024, 528/1024 }')
if [ "$vis" = "$expected" ]; then pass; else fail "visible fractions: got '$vis', expected '$expected'"; fi

run bench --op attention --sizes 24 --d 8 --softcap 5 --window 2:1 --rope 500000 --rope-style interleaved --rope-dims 4 --alibi --alibi-max-bias 4 --repeat 1 --warmup 0
expect_code 0 "bench variants, table"
expect_out_has "attention/softcap=5 " "the table labels the softcap row"
expect_out_has "attention/window=2:1 " "the table labels a two-sided window"
expect_out_has "attention/alibi=4 " "the table labels ALiBi with its maximum bias"
expect_out_has "attention/rope=500000:interleaved:dims=4 " "the table labels RoPE with its style and dims"
expect_out_has " visible" "a window adds the visible column"
expect_out_has "variants (attend's options" "the footnote explains the variant names"

run bench --op attention --sizes 2x4x16x16 --kv-heads 2 --d 8 --sinks --segments 3 --kv-dtype f32,f16 --paths fused,materialized --repeat 1 --warmup 0 --format json
expect_code 0 "bench variants batched, grouped-query, both paths and K/V types"
n=$(grep -c '"variant": "sinks"' "$T/out")
if [ "$n" = 4 ]; then pass; else fail "json: a sinks row per path and K/V type, got $n"; fi
expect_out_has '"command": "attention 2x4:2x16x16x8 materialized segments=3"' "json: the command names the variant"
n=$(grep -o '"ratio_to_first_of_shape": [0-9.e+-]*,' "$T/out" | wc -l)
if [ "$n" -eq 11 ]; then pass; else fail "json: 11 ratios (12 cases, the first plain), got $n"; fi

run bench --op mha --sizes 1x2x8x8 --d 4 --rope 100 --softcap 3 --repeat 1 --warmup 0
expect_code 0 "bench --op mha with variants"
expect_out_has "mha/rope=100 " "mha's RoPE row"
# Bad values and shapes bench cannot give a variant: tests/bad/bench_*.case.

# Documents with Tq != Tk: ids per key position (keys 0-5 and 6-11); queries 0-7 each see 6 of 12.
run bench --op attention --sizes 8x12 --d 8 --segments 2 --repeat 1 --warmup 0 --format csv
expect_code 0 "bench --segments with Tq != Tk"
vcol=$(head -1 "$T/out" | tr ',' '\n' | grep -nx visible_fraction | cut -d: -f1)
got=$(awk -F, -v c="$vcol" '$1 == "attention" { printf "%s;", $c }' "$T/out")
if [ "$got" = "1;0.5;" ]; then pass; else fail "--segments 2 on 8x12: visible fractions '$got', expected '1;0.5;'"; fi
