# attn variance. Reference numbers come from torch 1.13 (/usr/bin/python3):
#   torch.manual_seed(92); q = torch.randn(4,8,32,512); k = torch.randn(4,8,32,512)
#   s = q @ k.transpose(-2,-1); s.var(unbiased=False) = 512.0118; (s/512**0.5).var(unbiased=False) = 1.000023
# and for d_k = 64 (torch.manual_seed(92); two torch.randn(32,32,64)): 64.99041 / 1.015475.

run variance --format pretty
expect_code 0 "variance with defaults"
expect_out_has "512.0118" "unscaled variance of the tutorial"
expect_out_has "1.000023" "scaled variance of the tutorial"
expect_out_has "ln 32 = 3.4657" "uniform entropy shown"

# No options at all (csv off a terminal): still 512.01 and 1.0000.
run variance
expect_code 0 "variance, no options"
expect_out_has "512.01" "csv unscaled"
expect_out_has ",1.0000" "csv scaled"
expect_out_has "d_k,unscaled_var,scaled_var,theory_unscaled_var,theory_scaled_var" "csv header"

# A sweep written as 1,2,4,...,1024 gives 11 rows; every row reseeded (d_k 512 unchanged).
# (The single run's row is taken from its output: the 9th digit depends on the kernel's
# float32 rounding of Q·Kᵀ, which the arch may change.)
run variance --dk 512 --format csv
single=$(grep '^512,' "$T/out")
run variance --dk 1,2,4,...,1024 --format csv
expect_code 0 "sweep"
n=$(grep -c '^[0-9]' "$T/out"); [ "$n" -eq 11 ] && pass || fail "sweep rows: $n, expected 11"
expect_out_has "${single:-missing single run}" "d_k 512 row of the sweep equals the single run"
expect_out_has "512,512.0117" "d_k 512 row of the sweep: torch's 512.0118 within float32 rounding"
run variance --dk 64 --format tsv
expect_out_has "64	64.99" "torch value for d_k 64"
run variance --dk 16,32,...,80 --format csv
n=$(grep -c '^[0-9]' "$T/out"); [ "$n" -eq 5 ] && pass || fail "arithmetic ... gives 16,32,48,64,80: got $n rows"

# JSON: one object per d_k with the documented keys.
run variance --dk 8,64 --format json
for key in '"d_k": 8' '"d_k": 64' '"unscaled_var"' '"scaled_var"' '"theory_unscaled_var": 64' '"theory_scaled_var": 1' \
           '"unscaled": {"max_weight_mean"' '"scaled": {"max_weight_mean"' '"entropy_mean"' '"saturated_fraction"' \
           '"tiny_fraction"' '"jacobian_norm_mean"'; do
    expect_out_has "$key" "json key $key"
done
if command -v python3 >/dev/null; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["d_k"] for x in d]==[8,64]' "$T/out" 2>/dev/null; then pass; else fail "json does not parse"; fi
fi

# sigma: theory scales with σ⁴.
run variance --dk 32 --sigma 2 --format csv
expect_out_has ",512,16," "theory d_k·σ⁴ = 512 and σ⁴ = 16 for σ = 2"

# SVG: well-formed, one point per d_k in each of the six series.
run variance --dk 1,4,16,64 --svg "$T/v.svg" --format csv
expect_code 0 "variance --svg"
if command -v xmllint >/dev/null; then
    if xmllint --noout "$T/v.svg" 2>"$T/xmlerr"; then pass; else fail "xmllint: $(head -n 3 "$T/xmlerr")"; fi
fi
n=$(grep -o 'class="pt ' "$T/v.svg" | wc -l); [ "$n" -eq 24 ] && pass || fail "svg points: $n, expected 24"

# Usage errors.
run variance --dk 0; expect_code 2 "d_k 0"
run variance --dk 4,x; expect_code 2 "d_k not a number"
run variance --dk 1,...; expect_code 2 "dangling ..."
run variance --dk 1,2,4,...,1000 --rows 2 --batch 1
expect_code 2 "1,2,4,...,1000 is neither geometric (1000 no power of 2) nor arithmetic: refused"
expect_out_empty "no partial output for 1,2,4,...,1000"
# An arithmetic step that misses the last value: 1,3,...,8 gave 1,3,5,7,8 (a last step of 1).
run variance --dk 1,3,...,8 --rows 2 --batch 1
expect_code 2 "1,3,...,8: +2 does not land on 8"
expect_err_has "end at 7 or 9" "1,3,...,8: the message offers the two ends that work"
run variance --dk 1,3,5,...,9 --rows 2 --batch 1 --format csv
n=$(grep -c '^[0-9]' "$T/out"); [ "$n" -eq 5 ] && pass || fail "1,3,5,...,9 gives 5 rows: got $n"
run variance --dk 2,4,8,...,64 --rows 2 --batch 1 --format csv
n=$(grep -c '^[0-9]' "$T/out"); [ "$n" -eq 6 ] && pass || fail "2,4,8,...,64 gives 6 rows: got $n"
run variance --rows 0; expect_code 2 "rows 0"
run variance --sigma -1; expect_code 2 "negative sigma"
run variance --sigma nan; expect_code 2 "nan sigma"
run variance --batch 100000 --rows 1000 --dk 1000; expect_code 2 "too large"
run variance --format npy; expect_code 2 "npy is not a table format"
run variance --torch-kernel fast; expect_code 2 "unknown torch kernel"
expect_out_empty "no output on error"

# --svg "" and --svg - (with the table also on stdout) would put the SVG into the table's output.
run variance --rows 2 --batch 1 --svg ""
expect_code 2 "variance --svg '' is refused"
expect_out_empty "variance --svg '': no output"
run variance --rows 2 --batch 1 --svg -
expect_code 2 "variance --svg - with the table on stdout is refused"
expect_out_empty "variance --svg -: no output"
run variance --rows 2 --batch 1 --svg - -o "$T/table.csv"
expect_code 0 "variance --svg - with the table sent to -o"
expect_out_has "<svg" "the SVG alone on stdout"

# pretty: --digits sets the decimals of the softmax statistics (it was ignored), and the last
# header of that table lines up with its column (it ended 4 columns past it).
run variance --dk 4 --rows 8 --batch 4 --format pretty --digits 2
expect_code 0 "variance pretty --digits 2"
if tail -n 1 "$T/out" | grep -qE '^ +4 +[0-9]\.[0-9]{2} \| [0-9]\.[0-9]{2} '; then pass
else fail "pretty --digits 2: $(tail -n 1 "$T/out")"; fi
widths=$(tail -n 2 "$T/out" | while IFS= read -r l; do printf '%s' "$l" | LC_ALL=C.UTF-8 wc -m; done | sort -u | wc -l)
if [ "$widths" = 1 ]; then pass; else fail "softmax table: header and row of different widths: $(tail -n 2 "$T/out")"; fi
