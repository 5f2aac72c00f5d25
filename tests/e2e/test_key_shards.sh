# Key shards: --key-rows A:B with --show context,lse, merged by attn merge, give the whole run's
# context and lse (2e-6 relative; bitwise for one shard), with the same bytes for the shards in
# any order; the README's GNU parallel recipe (4 shards) and the Slurm array script over keys
# (its tasks run one after another with Slurm's variables set); bad input.

K=$T/keys
mkdir -p "$K"
ALLCLOSE=$(dirname "$ATTN")/allclose

# npy_of FILE.npz NAME OUT.npy: one array of an npz as .npy (attn concat of one input converts).
npy_of() { "$ATTN" concat "$1:$2" --format npy -o "$3" 2>"$T/err"; }
# expect_merged WHOLE.npz MERGED.npz DESCRIPTION: context and lse within 2e-6 relative.
expect_merged() {
    local name msg
    for name in context lse; do
        npy_of "$1" $name "$K/w.npy" && npy_of "$2" $name "$K/m.npy" || { fail "$3: $name not readable: $(cat "$T/err")"; continue; }
        if msg=$("$ALLCLOSE" "$K/m.npy" "$K/w.npy" --rtol 2e-6 --atol 2e-6 2>&1); then pass; else fail "$3 ($name): $msg"; fi
    done
}
expect_same() { if cmp -s "$1" "$2"; then pass; else fail "$3: $(cmp "$1" "$2" 2>&1 | head -n 1)"; fi; }

# ---- The README recipe as printed there: 4 key shards of a causal multi-head run. ----
"$ATTN" random --seed 1 --shape 2,64,32 --format npy -o "$K/x.npy"
"$ATTN" random --seed 2 --shape 96,32 --format npy -o "$K/in_proj.npy"
if ! command -v parallel >/dev/null 2>&1; then
    fail "GNU parallel is not installed (make test installs the Debian package parallel)"
else
    (cd "$K" && mkdir -p build && ln -sf "$ATTN" build/attn &&
     parallel --will-cite --jobs 4 build/attn attend -x x.npy --heads 4 --in-proj in_proj.npy --causal \
         --key-rows {} --show context,lse --format npz -o keys{#}.npz ::: 0:16 16:32 32:48 48:64 &&
     build/attn merge keys*.npz --show context --format npy -o context.npy) 2>"$T/err"
    CODE=$?; ERR=$(cat "$T/err")
    expect_code 0 "the README's key-shard recipe"
    run attend -x "$K/x.npy" --heads 4 --in-proj "$K/in_proj.npy" --causal --show context,lse --format npz -o "$K/whole.npz"
    npy_of "$K/whole.npz" context "$K/whole_ctx.npy"
    # These unscaled random projections give logits in the hundreds: a float32 lse of magnitude
    # L is rounded by up to L·2^-24, which moves a shard's weight by as much (the whole run's own
    # float32 logits carry errors of the same size). The bound: 2e-6 + 4·max|lse|·2^-24.
    atol=$("$ATTN" concat "$K/whole.npz:lse" --format csv | tr ',' '\n' |
           awk '{ a = $1 < 0 ? -$1 : $1; if (a > m) m = a } END { printf "%.3g", 2e-6 + 4 * m * 2^-24 }')
    if msg=$("$ALLCLOSE" "$K/context.npy" "$K/whole_ctx.npy" --rtol 2e-6 --atol "$atol" 2>&1); then pass
    else fail "4 key shards merged = the whole run (atol $atol): $msg"; fi
fi

# ---- -q/-k/-v: heads (grouped-query), batches, bottom-right causal, a window, lengths. ----
# (Bottom-right with lengths is each item's length − Tq: 53,13 leaves no row of the 13 queries
# without a key, while the shards past key 13 of item 1 are wholly masked.)
"$ATTN" random --seed 3 --shape 2,4,13,7 --format npy -o "$K/q.npy"
"$ATTN" random --seed 4 --shape 2,2,53,7 --format npy -o "$K/k.npy"
"$ATTN" random --seed 5 --shape 2,2,53,5 --format npy -o "$K/v.npy"
qkv=(-q "$K/q.npy" -k "$K/k.npy" -v "$K/v.npy")
for variant in "--causal=bottom-right --window 20:3 --lengths 53,30" "--causal --lengths 40,53" \
               "--window 0:0 --masked-rows uniform" "--causal=bottom-right --masked-rows nan --lengths 53,13"; do
    # shellcheck disable=SC2206
    opts=($variant)
    run attend "${qkv[@]}" "${opts[@]}" --show context,lse --format npz -o "$K/whole.npz"
    expect_code 0 "whole run ($variant)"
    # Shards of every size: empty, one key, a lane either side of 16, the rest.
    files=()
    for r in 0:0 0:1 1:17 17:17 17:40 40:53; do
        run attend "${qkv[@]}" "${opts[@]}" --key-rows $r --show context,lse --format npz -o "$K/s-${r/:/-}.npz"
        expect_code 0 "key rows $r ($variant)"
        files+=("$K/s-${r/:/-}.npz")
    done
    run merge "${files[@]}" --format npz -o "$K/merged.npz"
    expect_code 0 "merge of 6 shards ($variant)"
    expect_merged "$K/whole.npz" "$K/merged.npz" "6 shards of every size ($variant)"
    # The same shards in another order: the same bytes.
    run merge "${files[5]}" "${files[2]}" "${files[0]}" "${files[4]}" "${files[1]}" "${files[3]}" --format npz -o "$K/shuffled.npz"
    for name in context lse; do
        npy_of "$K/merged.npz" $name "$K/a.npy"; npy_of "$K/shuffled.npz" $name "$K/b.npy"
        expect_same "$K/a.npy" "$K/b.npy" "shards in another order give the same $name bits ($variant)"
    done
    # --show context,context: context once, as attend's --show (twice, csv did not read back)
    run merge "${files[@]}" --show context,context --format csv
    expect_code 0 "merge --show context,context ($variant)"
    if [ "$(grep -c '^# context \[0, 0\]' "$T/out")" = 1 ]; then pass
    else fail "merge --show context,context printed context twice ($variant)"; fi
    # A shard copied under another name is merged twice (its lse ln 2 too high): said on stderr;
    # empty shards (0:0 and 17:17, the same bits) are not.
    if [ "$ERR" = "" ]; then pass; else fail "merge of 6 shards said something ($variant): $ERR"; fi
    cp "$K/s-1-17.npz" "$K/copy.npz"
    run merge "${files[@]}" "$K/copy.npz" --format npz -o "$K/twice.npz"
    expect_code 0 "merge with a shard copied ($variant)"
    expect_err_has "attn: note: $K/s-1-17.npz and $K/copy.npz hold the same context and lse: if they are one key shard twice" \
        "the copied shard noted ($variant)"
    # One shard of every key: the whole run, bit for bit.
    run attend "${qkv[@]}" "${opts[@]}" --key-rows 0:53 --show context,lse --format npz -o "$K/one.npz"
    run merge "$K/one.npz" --format npz -o "$K/one_merged.npz"
    for name in context lse; do
        npy_of "$K/whole.npz" $name "$K/a.npy"; npy_of "$K/one_merged.npz" $name "$K/b.npy"
        expect_same "$K/a.npy" "$K/b.npy" "one shard merged = the whole run's $name, bitwise ($variant)"
    done
done

# Decoding (one query row: split-K) and the materialised path (with weights) shard the same way.
"$ATTN" random --seed 6 --shape 1,4,1,16 --format npy -o "$K/q1.npy"
"$ATTN" random --seed 7 --shape 1,1,3000,16 --format npy -o "$K/k1.npy"
"$ATTN" random --seed 8 --shape 1,1,3000,16 --format npy -o "$K/v1.npy"
dec=(-q "$K/q1.npy" -k "$K/k1.npy" -v "$K/v1.npy" --causal=bottom-right --window 2500)
run attend "${dec[@]}" --show context,lse --format npz -o "$K/dwhole.npz"
files=()
for r in 0:700 700:1500 1500:3000; do
    "$ATTN" attend "${dec[@]}" --key-rows $r --show context,lse --format npz -o "$K/d-${r/:/-}.npz" 2>/dev/null
    files+=("$K/d-${r/:/-}.npz")
done
run merge "${files[@]}" --format npz -o "$K/dmerged.npz"
expect_merged "$K/dwhole.npz" "$K/dmerged.npz" "decode: 3 key shards (one of them masked by the window)"
files=()
for r in 0:20 20:53; do
    "$ATTN" attend "${qkv[@]}" --causal --key-rows $r --show weights,context,lse --format npz -o "$K/w-${r/:/-}.npz" 2>/dev/null
    files+=("$K/w-${r/:/-}.npz")
done
run attend "${qkv[@]}" --causal --show context,lse --format npz -o "$K/cwhole.npz"
run merge "${files[@]}" --format npz -o "$K/wmerged.npz"
expect_merged "$K/cwhole.npz" "$K/wmerged.npz" "materialised shards (with --show weights)"

# Query rows and key rows together (a grid of shards): the query-row shards of a key shard
# join to it bit for bit.
run attend "${qkv[@]}" --causal --key-rows 10:40 --show context,lse --format npz -o "$K/grid_all.npz"
run attend "${qkv[@]}" --causal --key-rows 10:40 --query-rows 3:9 --show context,lse --format npz -o "$K/grid_part.npz"
for name in context lse; do
    axis=-2; [ $name = lse ] && axis=-1
    npy_of "$K/grid_part.npz" $name "$K/a.npy"
    "$ATTN" concat "$K/grid_all.npz:$name" --format npy -o "$K/all.npy"
    "$ATTN" attend "${qkv[@]}" --causal --key-rows 10:40 --query-rows 0:3 --show $name --format npy -o "$K/p0.npy" 2>/dev/null
    "$ATTN" attend "${qkv[@]}" --causal --key-rows 10:40 --query-rows 9:13 --show $name --format npy -o "$K/p2.npy" 2>/dev/null
    "$ATTN" concat "$K/p0.npy" "$K/a.npy" "$K/p2.npy" --axis $axis --format npy -o "$K/joined.npy"
    expect_same "$K/joined.npy" "$K/all.npy" "query-row shards of a key shard joined = the key shard ($name)"
done

# Float16 K/V (read as they are by the fused kernel) shard the same way.
"$ATTN" random --seed 4 --shape 2,2,53,7 --dtype f16 --format npy -o "$K/hk.npy"
"$ATTN" random --seed 5 --shape 2,2,53,5 --dtype f16 --format npy -o "$K/hv.npy"
half=(-q "$K/q.npy" -k "$K/hk.npy" -v "$K/hv.npy" --causal=bottom-right --window 30)
run attend "${half[@]}" --show context,lse --format npz -o "$K/hwhole.npz"
files=()
for r in 0:20 20:45 45:53; do
    "$ATTN" attend "${half[@]}" --key-rows $r --show context,lse --format npz -o "$K/h-${r/:/-}.npz" 2>/dev/null
    files+=("$K/h-${r/:/-}.npz")
done
run merge "${files[@]}" --format npz -o "$K/hmerged.npz"
expect_merged "$K/hwhole.npz" "$K/hmerged.npz" "float16 K/V: 3 key shards"

# Text shards: a 2-D run's lse is one row in csv and json, read back as the vector it is. With
# --causal, queries 0-3 see no key of the shard 4:6: lse -inf (json: null, read back as -inf)
# and a context of 0, or NaN under --masked-rows nan (json: null, read back as NaN).
x6="$ROOT/data/examples/simple/x.txt"
for fmt in csv json; do
    for opts in "" "--causal" "--causal --masked-rows nan"; do
        # shellcheck disable=SC2086 # opts: several words
        "$ATTN" attend -x "$x6" $opts --key-rows 0:4 --show context,lse --format $fmt -o "$K/t1.$fmt" 2>/dev/null
        # shellcheck disable=SC2086
        "$ATTN" attend -x "$x6" $opts --key-rows 4:6 --show context,lse --format $fmt -o "$K/t2.$fmt" 2>/dev/null
        run merge "$K/t1.$fmt" "$K/t2.$fmt" --format npz -o "$K/tm.npz"
        expect_code 0 "merge of $fmt shards ($opts)"
        # shellcheck disable=SC2086
        run attend -x "$x6" $opts --show context,lse --format npz -o "$K/tw.npz"
        expect_merged "$K/tw.npz" "$K/tm.npz" "$fmt shards merged ($opts)"
    done
done

# --show lse alone: each row's log-sum-exp, natural log (a uniform row of 6 equal logits: ln 6).
printf "0 0\n0 0\n" > "$K/z.txt"
printf "1 2\n3 4\n5 6\n7 8\n9 10\n11 12\n" > "$K/v6.txt"
printf "0 0\n0 0\n0 0\n0 0\n0 0\n0 0\n" > "$K/k6.txt"
run attend -q "$K/z.txt" -k "$K/k6.txt" -v "$K/v6.txt" --show lse --format csv
expect_code 0 "--show lse alone"
if [ "$OUT" = "$(printf '# lse (2,)\n1.79175949,1.79175949')" ]; then pass; else fail "--show lse of 6 equal logits: $OUT, expected ln 6 = 1.79175949"; fi

# The Slurm array script over keys, its 4 tasks run here one after another.
for task in 0 1 2 3; do
    ATTN=$ATTN SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1 \
        bash "$ROOT/data/shard/slurm-keys.sh" 53 "$K/slurm" "${qkv[@]}" --causal 2>"$T/err"
    CODE=$?; ERR=$(cat "$T/err")
    expect_code 0 "slurm-keys task $task"
done
run merge "$K"/slurm/shard-*.npz --format npz -o "$K/slurm_merged.npz"
expect_code 0 "merge of the slurm-keys shards"
expect_merged "$K/cwhole.npz" "$K/slurm_merged.npz" "slurm-keys shards merged = the whole run"

# ---- Bad input ----
run attend "${qkv[@]}" --key-rows 9:3
expect_code 2 "--key-rows with A > B"
expect_err_has "--key-rows" "the error names --key-rows"
run attend "${qkv[@]}" --key-rows 0:54
expect_code 2 "--key-rows past the 53 keys"
expect_err_has "53 keys" "the error says how many keys there are"
run attend "${qkv[@]}" --key-rows 0:9 --show output
expect_code 2 "--show output of a key shard"
run attend "${qkv[@]}" --show lse --normalize sum
expect_code 2 "--show lse with --normalize sum"
run merge "$K/whole.npz" "$K/dwhole.npz"
expect_code 3 "merge of shards of different shapes"
expect_err_has "dwhole.npz" "the error names the shard that does not fit"
run merge "$K/q.npy"
expect_code 3 "merge of a file without context and lse"
expect_err_has "--show context,lse" "the error says what a shard holds"
run merge
expect_code 2 "merge without files"
run merge "$K/whole.npz" --show weights
expect_code 2 "merge --show of something it does not give"

# --softmax-precision f64 over more than 256 query rows (more than one block of rows): every
# row's lse, against the float32 softmax's, and two f64 shards merged give the whole context.
# (Rows from 256 on were written over rows 0…: the materialised blocks' offset was lost.)
"$ATTN" random --seed 11 --shape 300,8 --format npy -o "$K/x300.npy"
"$ATTN" attend -x "$K/x300.npy" --show context,lse --format npz -o "$K/f32.npz"
"$ATTN" attend -x "$K/x300.npy" --softmax-precision f64 --show lse --format npz -o "$K/f64.npz"
npy_of "$K/f32.npz" lse "$K/a.npy"; npy_of "$K/f64.npz" lse "$K/b.npy"
if "$(dirname "$ATTN")/allclose" "$K/b.npy" "$K/a.npy" --atol 1e-5 --rtol 1e-5 2>"$T/err"; then pass
else fail "f64 lse of 300 rows: $(cat "$T/err")"; fi
"$ATTN" attend -x "$K/x300.npy" --softmax-precision f64 --key-rows 0:150 --show context,lse --format npz -o "$K/h1.npz"
"$ATTN" attend -x "$K/x300.npy" --softmax-precision f64 --key-rows 150:300 --show context,lse --format npz -o "$K/h2.npz"
"$ATTN" merge "$K/h1.npz" "$K/h2.npz" --show context --format npy -o "$K/m300.npy"
npy_of "$K/f32.npz" context "$K/a.npy"
if "$(dirname "$ATTN")/allclose" "$K/m300.npy" "$K/a.npy" --atol 1e-5 --rtol 1e-5 2>"$T/err"; then pass
else fail "merged f64 shards of 300 rows: $(cat "$T/err")"; fi
