# attn concat: joining text and npy shards along an axis. Expected outputs are written out
# by hand from the inputs (numpy.concatenate semantics).

printf '1 2\n3 4\n' >"$T/a.txt"
printf '5 6\n' >"$T/b.txt"
printf '[[7], [8]]\n' >"$T/c.txt"

run concat "$T/a.txt" "$T/b.txt" --format csv
expect_code 0 "rows of two text shards"
printf '1,2\n3,4\n5,6\n' >"$T/expect"
if diff "$T/expect" "$T/out" >/dev/null; then pass; else fail "axis 0: $(cat "$T/out")"; fi

run concat "$T/a.txt" "$T/c.txt" --axis 1 --format csv
printf '1,2,7\n3,4,8\n' >"$T/expect"
if diff "$T/expect" "$T/out" >/dev/null; then pass; else fail "axis 1: $(cat "$T/out")"; fi
run concat "$T/a.txt" "$T/c.txt" --axis -1 --format csv
if diff "$T/expect" "$T/out" >/dev/null; then pass; else fail "axis -1 is the last axis: $(cat "$T/out")"; fi
# --axis follows the other integer options: '+1' (joined along axis 1, exit 0) and ' 1' were
# accepted by strtoll; a huge value said only "expected an integer".
for bad in +1 " 1" 0x1; do
    run concat "$T/a.txt" "$T/c.txt" --axis "$bad"
    expect_code 2 "--axis '$bad' is refused"
done
expect_err_has "expected a decimal integer" "--axis 0x1: the message"
run concat "$T/a.txt" "$T/c.txt" --axis +1
expect_err_has "expected an integer without '+'" "--axis +1: the message names the sign"
run concat "$T/a.txt" "$T/c.txt" --axis 99999999999999999999
expect_code 2 "--axis beyond long long"
expect_err_has "invalid --axis '99999999999999999999': expected an integer from -32 to 31" "--axis beyond long long: the range"

# 3-D shards in attn's own block form, joined along each axis; the result is itself
# readable (and a shard through standard input).
cat >"$T/s0.csv" <<'X'
# context [0] 1x2
1,2

# context [1] 1x2
3,4

X
cat >"$T/s1.csv" <<'X'
# context [0] 1x2
5,6

X
run concat "$T/s0.csv" "$T/s1.csv" --format csv --name context
expect_code 0 "3-D shards along axis 0"
cat >"$T/expect" <<'X'
# context [0] 1x2
1,2

# context [1] 1x2
3,4

# context [2] 1x2
5,6

X
if diff "$T/expect" "$T/out" >/dev/null; then pass; else fail "3-D axis 0: $(cat "$T/out")"; fi
run_in "$T/s1.csv" concat "$T/s0.csv" - --format csv --name context
if diff "$T/expect" "$T/out" >/dev/null; then pass; else fail "a shard from standard input: $(cat "$T/out")"; fi
run concat "$T/s0.csv" "$T/s0.csv" --axis 1 --format json
cat >"$T/expect" <<'X'
{
  "concat": [
    [
      [1, 2],
      [1, 2]
    ],
    [
      [3, 4],
      [3, 4]
    ]
  ]
}
X
if diff "$T/expect" "$T/out" >/dev/null; then pass; else fail "3-D axis 1 as json: $(cat "$T/out")"; fi

# npy in, npy out: the full shape, values in C order (little-endian float32 after the header).
"$ATTN" concat "$T/s0.csv" --format npy -o "$T/s0.npy" 2>/dev/null
run concat "$T/s0.npy" "$T/s1.csv" --axis 0 --format npy -o "$T/j.npy"
expect_code 0 "npy and text shards together"
if head -c 128 "$T/j.npy" | grep -aqF "'shape': (3, 1, 2)"; then pass; else fail "joined npy shape"; fi
vals=$(od -An -tf4 -j128 "$T/j.npy" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
[ "$vals" = "1 2 3 4 5 6" ] && pass || fail "joined npy values: $vals"

# The round trip the sharding recipe relies on: split by rows, join, compare with cmp.
"$ATTN" random --seed 7 --shape 2,5,3 --format npy -o "$T/whole.npy" 2>/dev/null
"$ATTN" concat "$T/whole.npy" --format csv -o "$T/whole.csv"
run concat "$T/whole.npy" --format npy -o "$T/copy.npy"
if cmp -s "$T/whole.npy" "$T/copy.npy"; then pass; else fail "one input is copied unchanged (npy bytes)"; fi
run concat "$T/whole.csv" --format npy -o "$T/back.npy"
if cmp -s "$T/whole.npy" "$T/back.npy"; then pass; else fail "csv of 9 significant digits reads back bit for bit"; fi

# Errors: exit 3 naming files and shapes, exit 2 for usage.
run concat "$T/a.txt" "$T/c.txt"
expect_code 3 "shapes differ off the axis"
expect_err_has "cannot join $T/c.txt (2, 1) to $T/a.txt (2, 2) along axis 0: dimension 1 is 1, not 2" "names both shapes"
run concat "$T/a.txt" "$T/s0.csv"
expect_code 3 "ranks differ"
expect_err_has "3 dimensions instead of 2" "rank message"
run concat "$T/a.txt" --axis 2
expect_code 2 "axis out of range"
expect_err_has "invalid --axis 2: the inputs have 2 dimensions (axis -2 to 1)" "axis message"
run concat "$T/a.txt" --axis x
expect_code 2 "non-numeric axis"
run concat
expect_code 2 "no inputs"
run concat - -
expect_code 2 "standard input twice"
run concat "$T/a.txt" --name "two words"
expect_code 2 "a name that would not read back"
"$ATTN" random --seed 1 --shape 2,3 --count 2 --format csv >"$T/draws.csv" 2>/dev/null
run concat "$T/draws.csv"
expect_code 3 "two draws are two tensors, not one glued matrix"
expect_err_has "a second matrix starts here" "glue refused"
expect_out_empty "no output on error"
run concat --help
expect_code 0 "help"
for opt in --axis --name --format --digits --output; do expect_out_has "$opt" "help documents $opt"; done
