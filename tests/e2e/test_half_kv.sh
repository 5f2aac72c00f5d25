# float16 inputs: attn random --dtype f16 against PyTorch's .half(), '<f2' K/V read by attend,
# and bench --kv-dtype. Expected values were printed by /usr/bin/python3 with torch 1.13:
#   torch.manual_seed(123); x = torch.randn(3, 5).half()
#   print('%.9g' of every x.float() value, rows as csv lines)
#   torch.manual_seed(7); numpy.save(f, torch.randn(2, 3, 4).half().numpy())   (numpy 1.24.2)
# whose file has the sha256 below.

cat >"$T/want" <<'EOF2'
-0.111450195,0.120361328,-0.369628906,-0.240478516,-1.19726562
0.209228516,-0.972167969,-0.754882812,0.323974609,-0.108520508
0.210327148,-0.390869141,0.234985352,0.665039062,0.352783203
EOF2
run random --seed 123 --shape 3,5 --dtype f16 --format csv
expect_code 0 "random --dtype f16"
if diff "$T/want" "$T/out" >"$T/diff"; then pass; else fail "random --dtype f16 is torch's randn(...).half(): $(head -n 4 "$T/diff")"; fi

run random --seed 7 --shape 2,3,4 --dtype f16 --format npy -o "$T/h.npy"
expect_code 0 "random --dtype f16 --format npy"
sum=$(sha256sum "$T/h.npy" | cut -d' ' -f1)
if [ "$sum" = a1d6d4417ccb8caf337c6c99b11b9007d34db76a9d21c2a50667233b48f8c17c ]; then pass; else
    fail "random --dtype f16 npy is not what numpy.save writes for torch's .half() ($sum)"; fi
if head -c 128 "$T/h.npy" | grep -qF "'descr': '<f2'"; then pass; else fail "the npy is '<f2'"; fi

run random --seed 1 --shape 2 --mean 70000 --std 1 --dtype f16
expect_code 2 "values beyond float16 are refused"
expect_err_has "overflow float16" "the message names float16"

run random --seed 1 --shape 2 --dtype f64
expect_code 2 "an unknown --dtype is a usage error"
expect_err_has "invalid --dtype 'f64'" "the message names the value"

# '<f2' keys and values read by attend give what the same (rounded) values give as text.
"$ATTN" random --seed 2 --shape 1,40,8 --format npy -o "$T/q.npy"
"$ATTN" random --seed 3 --shape 1,300,8 --dtype f16 --format npy -o "$T/k16.npy"
"$ATTN" random --seed 4 --shape 1,300,8 --dtype f16 --format npy -o "$T/v16.npy"
"$ATTN" random --seed 3 --shape 1,300,8 --dtype f16 --format csv >"$T/k.csv"
"$ATTN" random --seed 4 --shape 1,300,8 --dtype f16 --format csv >"$T/v.csv"
run attend -q "$T/q.npy" -k "$T/k16.npy" -v "$T/v16.npy" --format csv
expect_code 0 "attend with '<f2' keys and values"
cp "$T/out" "$T/half_out"
run attend -q "$T/q.npy" -k "$T/k.csv" -v "$T/v.csv" --format csv
if cmp -s "$T/out" "$T/half_out"; then pass; else fail "'<f2' K/V and the same values as text differ"; fi
# They stay float16 in memory and are widened only to be shown: keys and values print the
# same values as text; one decoding query row (the split-K kernel) gives the same bits; a
# float16 K with a float32 V is widened and still the same.
run attend -q "$T/q.npy" -k "$T/k16.npy" -v "$T/v16.npy" --show keys,values,weights,variance --format csv
expect_code 0 "attend --show keys,values,weights,variance with '<f2' K/V"
cp "$T/out" "$T/half_out"
run attend -q "$T/q.npy" -k "$T/k.csv" -v "$T/v.csv" --show keys,values,weights,variance --format csv
if cmp -s "$T/out" "$T/half_out"; then pass; else fail "'<f2' K/V shown: not the text values"; fi
run attend -q "$T/q.npy" -k "$T/k16.npy" -v "$T/v16.npy" --query-rows 5:6 --format csv
cp "$T/out" "$T/half_out"
run attend -q "$T/q.npy" -k "$T/k.csv" -v "$T/v.csv" --query-rows 5:6 --format csv
if cmp -s "$T/out" "$T/half_out"; then pass; else fail "'<f2' K/V, one decoding row: not the text values' result"; fi
run attend -q "$T/q.npy" -k "$T/k16.npy" -v "$T/v.csv" --format csv
cp "$T/out" "$T/half_out"
run attend -q "$T/q.npy" -k "$T/k.csv" -v "$T/v.csv" --format csv
if cmp -s "$T/out" "$T/half_out"; then pass; else fail "'<f2' K with a text V: not the text values' result"; fi
# A non-finite float16 value is refused as in any input, with its position.
/usr/bin/env printf '\x93NUMPY\x01\x00\x76\x00' >"$T/inf16.npy"
/usr/bin/env printf "%-117s\n" "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }" >>"$T/inf16.npy"
/usr/bin/env printf '\x00\x3c\x00\x3c\x00\x3c\x00\x3c\x00\x7c\x00\x3c' >>"$T/inf16.npy"
echo "1 2 3" >"$T/q3.txt"
run attend -q "$T/q3.txt" -k "$T/inf16.npy" -v "$T/inf16.npy"
expect_code 3 "attend: inf in a '<f2' K"
expect_err_has "inf16.npy: row 1, column 1 (0-based): non-finite value 'inf' is not allowed here" "the message names the position"
expect_out_empty "nothing on stdout"

# bench: float16 K/V, reported as such and as half the bytes.
run bench --op attention --sizes 1x3000 --d 16 --kv-dtype f16 --repeat 1 --warmup 0 --format json
expect_code 0 "bench --kv-dtype f16"
expect_out_has '"kv_dtype": "f16"' "json names the K/V type"
run bench --op attention --sizes 2x4x1x300 --kv-heads 2 --d 8 --kv-dtype f16 --repeat 1 --warmup 0
expect_code 0 "bench --kv-dtype f16, grouped-query decoding"
expect_out_has "attention/f16" "the table marks float16 K/V"
run bench --op attention --sizes 64 --d 8 --kv-dtype f16 --repeat 1 --warmup 0 --format csv
expect_code 0 "bench --kv-dtype f16 on a prefill shape (the query-block kernel)"
run bench --op attention --sizes 64 --kv-dtype f8 --repeat 1
expect_code 2 "an unknown --kv-dtype is a usage error"
expect_err_has "invalid --kv-dtype 'f8'" "the message names the value"
run bench --op matmul --sizes 4 --kv-dtype f16 --repeat 1
expect_code 2 "--kv-dtype with matmul is refused"

# Both K/V types of one shape timed in turn: the float16 case carries its ratio to the float32 one.
run bench --op attention --sizes 1x300 --d 16 --kv-dtype f32,f16 --repeat 2 --warmup 0 --format csv
expect_code 0 "bench --kv-dtype f32,f16"
kinds=$(awk -F, '$1 == "attention" { printf "%s:%s;", $19, ($22 == "" ? "-" : "r") }' "$T/out")
if [ "$kinds" = "f32:-;f16:r;" ]; then pass; else fail "an f32 row, then an f16 row with a ratio (got '$kinds')"; fi
run bench --op attention --sizes 64 --kv-dtype f32,f8 --repeat 1
expect_code 2 "an unknown entry of a --kv-dtype list is a usage error"
expect_err_has "invalid --kv-dtype 'f8'" "the message names the entry"

# A float16 K with --rope and no --kv-dtype stays float16 (the default: as read), rotated
# first: the same as --kv-dtype f16 (the rotated keys were kept in float32; context off by 3e-4).
# Found by a variant audit.
"$ATTN" random --seed 11 --shape 1,1,1,8 --format npy -o "$T/rq.npy"
"$ATTN" random --seed 12 --shape 1,1,4,8 --dtype f16 --format npy -o "$T/rk.npy"
"$ATTN" random --seed 13 --shape 1,1,4,2 --dtype f16 --format npy -o "$T/rv.npy"
"$ATTN" attend -q "$T/rq.npy" -k "$T/rk.npy" -v "$T/rv.npy" --rope 10000 --show keys,context --format npz -o "$T/r_default.npz"
"$ATTN" attend -q "$T/rq.npy" -k "$T/rk.npy" -v "$T/rv.npy" --rope 10000 --kv-dtype f16 --show keys,context --format npz -o "$T/r_f16.npz"
if cmp -s "$T/r_default.npz" "$T/r_f16.npz"; then pass; else fail "f16 K with --rope: the default differs from --kv-dtype f16"; fi
