# Sharding: --query-rows and --batch-items give rows bitwise identical to the same rows of the
# whole run, and the README's GNU parallel recipe (4 local shards) and the Slurm array script
# (tasks run one after another with Slurm's variables set) join back to the whole result.

S=$T/shard
mkdir -p "$S"
"$ATTN" random --seed 11 --shape 2,32,16 --format npy -o "$S/x.npy"
"$ATTN" random --seed 12 --shape 48,16 --format npy -o "$S/in_proj_weight.npy"
"$ATTN" random --seed 13 --shape 16,16 --format npy -o "$S/out_proj_weight.npy"
model=(-x "$S/x.npy" --heads 4 --in-proj "$S/in_proj_weight.npy" --out-proj "$S/out_proj_weight.npy"
       --causal --lengths 32,20)

# expect_same A B DESCRIPTION: byte-identical files.
expect_same() { if cmp -s "$1" "$2"; then pass; else fail "$3: $(cmp "$1" "$2" 2>&1 | head -n 1)"; fi; }

run attend "${model[@]}" --show output --format npy -o "$S/whole.npy"
expect_code 0 "the whole run"

if ! command -v parallel >/dev/null 2>&1; then
    fail "GNU parallel is not installed (make test installs the Debian package parallel)"
else
    # The README recipe, as printed there (4 shards of the 32 query rows on this machine).
    (cd "$S" && parallel --will-cite --jobs 4 "$ATTN" attend -x x.npy --heads 4 --in-proj in_proj_weight.npy \
         --out-proj out_proj_weight.npy --causal --lengths 32,20 --show output \
         --query-rows {} --format npy -o shard{#}.npy ::: 0:8 8:16 16:24 24:32 &&
     "$ATTN" concat shard1.npy shard2.npy shard3.npy shard4.npy --axis -2 --format npy -o joined.npy) 2>"$T/err"
    CODE=$?; ERR=$(cat "$T/err")
    expect_code 0 "GNU parallel recipe"
    expect_same "$S/joined.npy" "$S/whole.npy" "4 query-row shards joined with attn concat = the whole run"
fi

# Uneven shards, with more threads than rows, of the per-head weights (rows at axis -2).
run attend "${model[@]}" --show weights --format npy -o "$S/weights.npy"
expect_code 0 "whole weights"
for r in 0:1 1:13 13:32; do
    run attend "${model[@]}" --show weights --query-rows "$r" --threads 2 --format npy -o "$S/w-${r/:/-}.npy"
    expect_code 0 "weights of query rows $r"
done
run concat "$S/w-0-1.npy" "$S/w-1-13.npy" "$S/w-13-32.npy" --axis -2 --format npy -o "$S/w-joined.npy"
expect_code 0 "concat of weight shards"
expect_same "$S/w-joined.npy" "$S/weights.npy" "uneven weight shards joined = the whole weights"

# Batch items: one item per shard, joined along axis 0.
for b in 0:1 1:2; do
    run attend "${model[@]}" --show output --batch-items "$b" --format npy -o "$S/b-${b/:/-}.npy"
    expect_code 0 "batch items $b"
done
run concat "$S/b-0-1.npy" "$S/b-1-2.npy" --axis 0 --format npy -o "$S/b-joined.npy"
expect_same "$S/b-joined.npy" "$S/whole.npy" "batch-item shards joined = the whole run"

run attend "${model[@]}" --show output --query-rows 40:50
expect_code 2 "--query-rows beyond the 32 rows"
expect_err_has "--query-rows" "the error names the option"
run attend "${model[@]}" --show output --query-rows 5:5
expect_code 2 "an empty --query-rows range"
run attend "${model[@]}" --show output --batch-items 0:3
expect_code 2 "--batch-items beyond the 2 items"

# The Slurm array script, its 4 tasks run here one after another.
for task in 0 1 2 3; do
    ATTN=$ATTN SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1 \
        bash "$ROOT/data/shard/slurm.sh" 32 "$S/slurm" "${model[@]}" --show output 2>"$T/err"
    CODE=$?; ERR=$(cat "$T/err")
    expect_code 0 "slurm task $task"
done
run concat "$S"/slurm/shard-*.npy --axis -2 --format npy -o "$S/slurm-joined.npy"
expect_code 0 "concat of the slurm shards"
expect_same "$S/slurm-joined.npy" "$S/whole.npy" "slurm shards joined = the whole run"

# A shard's pictures number its rows as the whole run does: --query-rows 3:5 drew rows 0 and 1.
run attend -x "$ROOT/data/examples/simple/x.txt" --query-rows 3:5 --heatmap
expect_code 0 "--query-rows 3:5 --heatmap"
if [ "$(grep -cE '^[34] ' "$T/out")" = 2 ] && ! grep -qE '^[01] ' "$T/out"; then pass
else fail "--query-rows 3:5 --heatmap: rows are not numbered 3 and 4: $(head -n 4 "$T/out")"; fi
run attend -x "$ROOT/data/examples/simple/x.txt" --query-rows 3:5 --svg -
if grep -q '<title>4 → 0:' "$T/out" && ! grep -q '<title>0 → ' "$T/out"; then pass
else fail "--query-rows 3:5 --svg: the rows' titles are not 3 and 4"; fi

# Shards of a run with --masked-rows nan hold NaN rows: concat joins them (it refused NaN, so
# such a run could not be sharded), in npy and csv, and the computing commands still refuse NaN.
printf "1 0 0 0 0 0\n0 0 0 0 0 0\n1 1 1 1 1 1\n1 1 0 0 0 0\n1 1 1 1 1 1\n1 0 1 0 1 0\n" > "$T/m6"
x6="$ROOT/data/examples/simple/x.txt"
"$ATTN" attend -x "$x6" --mask "$T/m6" --masked-rows nan --show weights --format npy -o "$T/nan_whole.npy" 2>/dev/null
for r in 0:3 3:6; do
    "$ATTN" attend -x "$x6" --mask "$T/m6" --masked-rows nan --show weights --query-rows $r --format npy \
        -o "$T/nan_${r%:*}.npy" 2>/dev/null
    "$ATTN" attend -x "$x6" --mask "$T/m6" --masked-rows nan --show weights --query-rows $r --format csv \
        -o "$T/nan_${r%:*}.csv" 2>/dev/null
done
run concat "$T/nan_0.npy" "$T/nan_3.npy" --axis -2 --format npy -o "$T/nan_joined.npy"
expect_code 0 "concat of shards holding NaN rows"
expect_same "$T/nan_joined.npy" "$T/nan_whole.npy" "NaN-row shards joined = the whole run"
run concat "$T/nan_0.csv" "$T/nan_3.csv" --axis -2 --format npy -o "$T/nan_joined_csv.npy"
expect_code 0 "concat of csv shards holding NaN rows"
expect_same "$T/nan_joined_csv.npy" "$T/nan_whole.npy" "NaN-row csv shards joined = the whole run"
run softmax "$T/nan_0.csv"
expect_code 3 "softmax still refuses NaN"
