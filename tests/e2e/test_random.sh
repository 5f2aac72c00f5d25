# attn random against PyTorch. Expected numbers were printed with '%.9g' (which round-trips
# float32 exactly, so equal text means equal bits) by /usr/bin/python3 with torch 1.13:
#   torch.manual_seed(123); [torch.randn(3, 2) for _ in range(3)]
#   torch.manual_seed(5); torch.rand(3, 7)
#   torch.manual_seed(0); torch.randn(15)
#   torch.manual_seed(11); torch.empty(5).normal_(2.5, 0.3); torch.empty(2, 20).normal_(2.5, 0.3)
#   torch.manual_seed(3); torch.empty(2, 9).uniform_(-2, 3.7)
#   ATEN_CPU_CAPABILITY=default: torch.manual_seed(92); torch.randn(2, 16)

# A single draw of one or two dimensions prints bare rows in csv/tsv; several draws (or more
# dimensions) print blocks with their '# draw N ...' headers.

# expect_same_text EXPECTED_FILE DESCRIPTION: stdout equals the file exactly.
expect_same_text() {
    if diff "$1" "$T/out" >"$T/diff"; then pass; else fail "$2: $(head -n 6 "$T/diff")"; fi
}

cat >"$T/wqkv" <<'EOF'
# draw 0 3x2
-0.111467116,0.120362945
-0.369634509,-0.240417972
-1.19692433,0.20926936

# draw 1 3x2
-0.972355008,-0.755045474
0.323902756,-0.108522631
0.210331157,-0.390842825

# draw 2 3x2
0.234973416,0.665260434
0.352820754,0.972821116
-0.0386162177,-0.886101425

EOF
run random --seed 123 --shape 3,2 --count 3 --format csv
expect_code 0 "random seed 123 x3"
expect_same_text "$T/wqkv" "seed 123: W_q, W_k, W_v of the tutorial"

# The same through a pipe (default format csv when stdout is not a terminal).
run random --seed 123 --shape 3,2 --count 3
expect_same_text "$T/wqkv" "csv is the default off a terminal"

cat >"$T/rand" <<'EOF'
0.830251873	0.126110911	0.90746969	0.819927037	0.920103431	0.116645217	0.164391518
0.73791939	0.033264637	0.994184732	0.606428564	0.564571261	0.0724121928	0.659338951
0.715005755	0.579327583	0.980926931	0.650158644	0.0566338897	0.920111716	0.669764817
EOF
run random --seed 5 --shape 3,7 --uniform --format tsv
expect_same_text "$T/rand" "torch.rand(3, 7), tsv"

cat >"$T/serial" <<'EOF'
# draw 0 (15,)
1.54099607,-0.293428898,-2.17878938,0.568431258,-1.08452237,-1.39859545,0.403346837,0.838026345,-0.719257593,-0.403343529,-0.596635342,0.182036489,-0.856674612,1.10060418,-1.07118738

EOF
run random --seed 0 --shape 15 --format csv
expect_same_text "$T/serial" "torch.randn(15): serial Box-Muller path, 1-d as one row under its shape"

cat >"$T/meanstd" <<'EOF'
# draw 0 (5,)
2.72128892,3.08377886,2.29013753,2.10931087,2.34602141

EOF
run random --seed 11 --shape 5 --mean 2.5 --std 0.3 --format csv
expect_same_text "$T/meanstd" "normal_(2.5, 0.3) on 5 elements"
cat >"$T/lowhigh" <<'EOF'
-1.97569799,-1.39825463,-0.370697916,-1.84635746,0.688201785,-1.65733719,2.39963508,2.23908639,1.38820076
3.06078291,0.570878506,2.55709648,-1.14590693,0.288372159,-1.69119155,0.618609786,-0.9990502,3.41034222
EOF
run random --seed 3 --shape 2,9 --uniform --low -2 --high 3.7 --format csv
expect_same_text "$T/lowhigh" "uniform_(-2, 3.7)"

cat >"$T/scalar" <<'EOF'
1.47751939,-0.139170095,0.256977141,0.60183841,-1.5410049,0.0378769189,-1.04171336,-0.136756554,0.946026683,-3.03142214,2.03055859,0.304675996,0.496931702,-0.164845169,-0.83732152,0.274676889
-1.79487038,0.103991181,0.343878984,0.250582159,-1.54786587,0.0715161636,0.494454652,-0.305926234,-1.88049245,-1.51494956,-0.727591932,0.571301222,-0.438020498,-0.703849137,0.180633828,0.996665776
EOF
run random --seed 92 --shape 2,16 --torch-kernel scalar --format csv
expect_same_text "$T/scalar" "scalar flavour = torch with ATEN_CPU_CAPABILITY=default"
run random --seed 92 --shape 2,16 --format csv
if ! diff -q "$T/scalar" "$T/out" >/dev/null; then pass; else fail "avx2 and scalar flavours should differ on 32 values"; fi
expect_out_has "1.47751939,-0.139168665" "avx2 flavour: torch-rng.md anchor for seed 92"

# Leading dimensions are named in the block headers; 4-d shape gives 2*3 matrices.
run random --seed 1 --shape 2,3,2,2 --format csv
expect_out_has "# draw 0 [1, 2] 2x2" "index comment of the last matrix"
n=$(grep -c '^# draw' "$T/out"); if [ "$n" -eq 6 ]; then pass; else fail "expected 6 matrices, got $n"; fi

# npy keeps the full shape; first value's bytes are torch's (seed 123: 0xbde448df).
run random --seed 123 --shape 3,2 --format npy -o "$T/w.npy"
expect_code 0 "npy to file"
size=$(wc -c <"$T/w.npy"); if [ "$size" -eq $((128 + 24)) ]; then pass; else fail "npy size $size, expected 152 (header padded to 128)"; fi
if head -c 128 "$T/w.npy" | grep -aqF "'shape': (3, 2)"; then pass; else fail "npy header lacks the shape"; fi
first=$(od -An -tx4 -j128 -N4 "$T/w.npy" | tr -d ' '); [ "$first" = "bde448df" ] && pass || fail "npy first value $first"
run random --seed 1 --shape 4,8,2 --format npy -o "$T/n.npy"
if head -c 128 "$T/n.npy" | grep -aqF "'shape': (4, 8, 2)"; then pass; else fail "npy 3-d header"; fi
run random --seed 1 --shape 5 --format npy -o "$T/v.npy"
if head -c 128 "$T/v.npy" | grep -aqF "'shape': (5,)"; then pass; else fail "npy 1-d header"; fi
run random --seed 123 --shape 3,2 --count 3 --format npy -o "$T/draws"
expect_code 0 "npy, one file per draw"
if [ -f "$T/draws/draw0.npy" ] && [ -f "$T/draws/draw2.npy" ] && [ ! -e "$T/draws/draw3.npy" ]; then pass; else fail "draw files: $(ls "$T/draws")"; fi
first=$(od -An -tx4 -j128 -N4 "$T/draws/draw1.npy" | tr -d ' '); [ "$first" = "bf78ec42" ] && pass || fail "W_k first value $first"

# JSON: one object, the full shape nested per draw.
run random --seed 123 --shape 3,2 --count 2 --format json
expect_out_has '"seed": 123' "json seed"
expect_out_has '      [-0.111467116, 0.120362945],' "json nested rows"
if command -v python3 >/dev/null && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["draws"])==2 and len(d["draws"][1])==3' "$T/out" 2>/dev/null; then pass
elif command -v python3 >/dev/null; then fail "json does not parse"; fi  # no python3: not checked, not counted

# Without --seed: the seed goes to stderr, and repeating it gives the same numbers.
run random --shape 4,4 --format csv
expect_err_has "random seed" "seed announced on stderr"
seed=$(sed -nE 's/.*random seed ([0-9]+).*/\1/p' "$T/err")
cp "$T/out" "$T/first"
run random --shape 4,4 --format csv --seed "$seed"
expect_same_text "$T/first" "--seed from stderr repeats the run"

# Negative seeds wrap like torch.manual_seed(-1) (= 2^64 - 1).
run random --seed -1 --shape 4 --format csv
cp "$T/out" "$T/neg"
run random --seed 18446744073709551615 --shape 4 --format csv
expect_same_text "$T/neg" "seed -1 == 2^64-1"

# Usage errors (exit 2) with a message.
run random --seed 1; expect_code 2 "missing --shape"
run random --shape 3,-2; expect_code 2 "negative dimension"
run random --shape 3,x; expect_code 2 "non-numeric dimension"
run random --shape 100000,100000,100; expect_code 2 "too many elements"
# A dimension beyond 2^31 (or beyond 64 bits) was "expected ... non-negative integers", which it is.
run random --shape 4294967296,4294967296; expect_code 2 "a dimension beyond 2^31"
expect_err_has "dimension 4294967296 is too large" "a dimension beyond 2^31: the message says it is too large"
run random --shape 99999999999999999999; expect_code 2 "a dimension beyond 64 bits"
expect_err_has "is too large" "a dimension beyond 64 bits: too large"
run random --shape " 3,2"; expect_code 2 "a space before a dimension"
run random --shape 3 --low 1; expect_code 2 "--low without --uniform"
run random --shape 3 --uniform --mean 1; expect_code 2 "--mean with --uniform"
run random --shape 3 --std -1; expect_code 2 "negative std"
run random --shape 3 --uniform --low 2 --high 1; expect_code 2 "low > high"
run random --shape 3 --count 0; expect_code 2 "count 0"
run random --shape 3 --count 2 --format npy; expect_code 2 "several npy to stdout"
run random --shape 3 --torch-kernel avx512; expect_code 2 "unknown torch kernel"
run random --shape 3 --seed 12abc; expect_code 2 "bad seed"
run random --shape 3 --seed 18446744073709551616; expect_code 2 "seed >= 2^64"
run random --shape 3 --std 1e38 --mean 3e38; expect_code 2 "overflowing values"
expect_out_empty "no partial output on error"

# Every format of a 2-D draw reads back into attn as the same matrix (A·I = A, printed as csv).
printf '1 0\n0 1\n' >"$T/eye"
for f in csv tsv pretty npy; do
    digits=; [ "$f" = pretty ] && digits="--digits 9"  # pretty prints decimals: 9 keep these values whole
    "$ATTN" random --seed 123 --shape 3,2 --format "$f" $digits -o "$T/w.$f" 2>/dev/null
    run matmul "$T/w.$f" "$T/eye" --format csv
    expect_code 0 "attn reads back random --format $f"
    expect_out_has "-0.111467116,0.120362945" "first row of W_q read back from $f"
    expect_out_has "-1.19692433,0.20926936" "last row of W_q read back from $f"
done

# A usage error is reported before a seed is drawn: no "random seed ..." line for a run
# that does nothing.
run random --shape 3,2 --count 2 --format npy
expect_code 2 "npy with --count 2 on stdout is refused"
if grep -q "random seed" "$T/err"; then fail "no seed announced for a refused run: $ERR"; else pass; fi

# An N-D draw printed as text reads back as the same tensor, bit for bit: csv/tsv/json carry
# 9 significant digits (float32 round trip), compared with the npy of the same draw.
"$ATTN" random --seed 4 --shape 2,3,4,5 --format npy -o "$T/nd.npy" 2>/dev/null
for f in csv tsv json; do
    "$ATTN" random --seed 4 --shape 2,3,4,5 --format "$f" >"$T/nd.$f" 2>/dev/null
    if [ "$f" = json ]; then  # the draws envelope is attn random's own: take the draw out of it
        sed -n '/"draws": \[/,/^  \]/p' "$T/nd.$f" | sed '1d;$d' >"$T/nd.txt"
    else
        cp "$T/nd.$f" "$T/nd.txt"
    fi
    run concat "$T/nd.txt" --format npy -o "$T/back.npy"
    expect_code 0 "4-d draw read back from $f"
    if cmp -s "$T/nd.npy" "$T/back.npy"; then pass; else fail "4-d draw from $f differs from its npy"; fi
done
# pretty titles name each slice and read back too (within the printed decimals)
run random --seed 4 --shape 2,1,3 --format pretty
expect_out_has "draw 0 [1] (1x3):" "pretty title of the second slice"
"$ATTN" random --seed 4 --shape 2,1,3 --format pretty --digits 9 >"$T/p.txt" 2>/dev/null
"$ATTN" random --seed 4 --shape 2,1,3 --format csv >"$T/c.txt" 2>/dev/null
run concat "$T/p.txt" --format csv --name draw
"$ATTN" concat "$T/c.txt" --format csv --name draw >"$T/c2.txt" 2>/dev/null
expect_close "$T/c2.txt" "$T/out" 1e-8 "pretty N-D draw reads back"

# Two draws are two tensors: attend reading them as one input is an input error naming the
# second block's line, never a 4x3 matrix glued from both (the bug this rule fixes).
"$ATTN" random --seed 1 --shape 2,3 --count 2 --format csv >"$T/two.csv" 2>/dev/null
run_in "$T/two.csv" attend -x -
expect_code 3 "attend refuses two glued draws"
expect_err_has "<stdin>:5:1: a second matrix starts here" "the second draw's header is named"
expect_out_empty "no context printed from glued draws"

# npy to a terminal is refused as every other command refuses it (random wrote the bytes).
if command -v script > /dev/null 2>&1; then
    for extra in "" "--dtype f16"; do
        script -qec "'$ATTN' random --shape 2,2 --seed 1 --format npy $extra; echo rc=\$?" /dev/null < /dev/null > "$T/tty" 2>&1
        if grep -q "refusing to write it to a terminal" "$T/tty" && grep -q "rc=2" "$T/tty" && ! grep -q NUMPY "$T/tty"; then pass
        else fail "random --format npy $extra to a terminal: $(head -c 200 "$T/tty")"; fi
    done
fi

# ---- --generator numpy: NumPy's legacy np.random, against NumPy's own values ------------------
# data/rng/numpy_cli.txt: for each argument list, the float32 values NumPy 1.24 gave (one draw a
# line, %.9g), made by data/rng/make_numpy_reference.py; attn's csv must print the same text.
while IFS='|' read -r args want; do
    case $args in '#'*|'') continue ;; esac
    read -ra argv <<<"$args"
    got=$("$ATTN" random --generator numpy "${argv[@]}" --format csv 2>&1 | grep -v '^#' | grep -v '^$' | tr '\n' ' ')
    wants=$(grep -F -- "$args|" "$ROOT/data/rng/numpy_cli.txt" | cut -d'|' -f2 | tr '\n' ' ')
    if [ "$got" = "$wants" ]; then pass; else fail "random --generator numpy $args: got '$got', NumPy gave '$wants'"; fi
done < <(sort -u -t'|' -k1,1 "$ROOT/data/rng/numpy_cli.txt")
for bad in "--seed 4294967296|takes 0 to 2^32-1" "--seed -1|takes 0 to 2^32-1" "--torch-kernel scalar --seed 1|--torch-kernel" \
           "--dtype f16 --seed 1|does not go with --generator numpy"; do
    read -ra argv <<<"${bad%%|*}"
    run random --generator numpy --shape 2 "${argv[@]}"
    expect_code 2 "random --generator numpy ${bad%%|*}"
    expect_err_has "${bad#*|}" "random --generator numpy ${bad%%|*}"
done

# ---- several draws, nn.Linear's initialisation: against PyTorch's own values --------------------
# data/rng/torch_linear.txt: for each argument list, the tensors torch 1.13 drew in the same order
# (torch.randn/rand and nn.Linear constructors; data/rng/make_linear_reference.py), all values
# of all draws in order; attn's csv must print the same numbers.
while IFS= read -r args; do
    read -ra argv <<<"$args"
    got=$("$ATTN" random "${argv[@]}" --format csv 2>&1 | grep -v '^#' | grep -v '^$' | tr '\n' ',')
    wants=$(grep -F -- "$args|" "$ROOT/data/rng/torch_linear.txt" | cut -d'|' -f2 | tr '\n' ',')
    if [ -n "$wants" ] && [ "$got" = "$wants" ]; then pass; else fail "random $args: not PyTorch's values: ${got:0:200}"; fi
done < <(grep -v '^#' "$ROOT/data/rng/torch_linear.txt" | cut -d'|' -f1 | uniq)
# Several draws as npy: one file per draw in -o DIR, with each draw's shape.
run random --seed 1 --shape 2,3 --linear 3,4 --format npy -o "$T/lin"
expect_code 0 "random --shape --linear -o DIR"
if [ -f "$T/lin/draw0.npy" ] && [ -f "$T/lin/draw1.npy" ] && [ -f "$T/lin/draw2.npy" ] && [ ! -e "$T/lin/draw3.npy" ]; then pass; else fail "random --shape 2,3 --linear 3,4: not draw0..2.npy: $(ls "$T/lin")"; fi
run softmax "$T/lin/draw1.npy" --format csv
if [ "$(grep -vc '^#' <<<"$OUT")" -eq 4 ] && [ "$(head -1 <<<"$OUT" | tr ',' '\n' | wc -l)" -eq 3 ]; then pass
else fail "random --linear 3,4: the weight is not 4 rows of 3 (OUT×IN): $OUT"; fi
for bad in "--linear 3|expected IN,OUT" "--linear 0,2|expected IN,OUT" "--shape 2 --shape 3 --count 2|--count repeats one --shape" \
           "--linear 2,2 --mean 1|--mean/--std apply to --shape draws" "--linear 2,2 --low 1|--low/--high need --uniform" \
           "--shape 2 --uniform --normal|--uniform and --normal both" "--shape 2 --linear 2,2 --format npy|needs -o DIR" \
           "--linear 2,2 --generator numpy|does not go with --generator numpy"; do
    read -ra argv <<<"${bad%%|*}"
    run random --seed 1 "${argv[@]}"
    expect_code 2 "random ${bad%%|*}"
    expect_err_has "${bad#*|}" "random ${bad%%|*}"
done
