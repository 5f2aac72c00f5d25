# Input and output formats through the real binary: npy files and pipes, -o FILE / -o DIR,
# pasted text forms, csv round trips, closed pipes and write errors.

F="$ROOT/data/fixtures"
printf '1 0 0\n0 1 0\n0 0 1\n' > "$T/I3"
printf '1.5 -2.25 0.125\n3 4.5 -0.5\n' > "$T/floats"   # the values make_fixtures.py saved

# every npy dtype/order fixture reads as the same matrix (times the identity = itself)
for f in floats_le_f4_c floats_le_f8_fortran floats_be_f8_c floats_be_f4_fortran floats_le_f2_c floats_v2 floats_v3; do
    run matmul "$F/$f.npy" "$T/I3"; expect_code 0 "read $f.npy"
    expect_close "$T/floats" "$T/out" 0 "$f.npy values"
done
printf '1 -2 3\n40 5 -6\n' > "$T/ints"
run matmul "$F/ints_le_i8_fortran.npy" "$T/I3"; expect_code 0 "read int64 fortran npy"
expect_close "$T/ints" "$T/out" 0 "int64 fortran values"
# a 1-D npy is a 1xn row
run softmax "$F/vector_f4.npy" --normalize sum; expect_code 0 "1-D npy"
printf '0.2 -0.4 0.6 -0.4 1.0\n' > "$T/expect"   # [0.1,-0.2,0.3,-0.2,0.5] divided by its sum 0.5
expect_close "$T/expect" "$T/out" 1e-6 "1-D npy read as 1x5"

# npy errors: exit 3, message naming the file
for f in scalar_f4 object empty_f4; do
    run softmax "$F/$f.npy"; expect_code 3 "reject $f.npy"
    expect_err_has "attn: $F/$f.npy: " "$f.npy message names the file"
    expect_out_empty "$f.npy: no output"
done
# A (2, 2, 3) npy is 3-D where a weight matrix is expected (softmax takes it: its own test).
run attend -x "$F/floats_le_f4_c.npy" --wq "$F/batched_f4.npy"; expect_code 3 "reject batched_f4.npy as --wq"
expect_err_has "attn: $F/batched_f4.npy: shape (2, 2, 3) has 3 dimensions" "batched_f4.npy message names the file"
expect_out_empty "batched_f4.npy: no output"
head -c 100 "$F/floats_le_f4_c.npy" > "$T/truncated.npy"
run softmax "$T/truncated.npy"; expect_code 3 "truncated npy"
expect_err_has "truncated" "truncated npy message"

# npy output: to a pipe (read back from standard input), to -o FILE, into -o DIR
"$ATTN" matmul "$T/floats" "$T/I3" --format npy | "$ATTN" matmul - "$T/I3" --format csv > "$T/out" 2> "$T/err"
CODE=$?; expect_code 0 "npy through a pipe"
expect_close "$T/floats" "$T/out" 0 "npy through a pipe"
run matmul "$T/floats" "$T/I3" --format npy -o "$T/p.npy"; expect_code 0 "npy -o FILE"
expect_out_empty "npy -o FILE: nothing on stdout"
if cmp -s "$T/p.npy" "$F/floats_le_f4_c.npy"; then pass; else fail "npy -o FILE differs from numpy's np.save bytes"; fi
mkdir "$T/dir"
run matmul "$T/floats" "$T/I3" --format npy -o "$T/dir"; expect_code 0 "npy -o existing DIR"
if cmp -s "$T/dir/product.npy" "$F/floats_le_f4_c.npy"; then pass; else fail "npy -o DIR: DIR/product.npy missing or wrong"; fi
run softmax "$T/floats" --format npy -o "$T/dir"; expect_code 0 "softmax npy -o DIR"
if [ -s "$T/dir/softmax.npy" ]; then pass; else fail "npy -o DIR: DIR/softmax.npy missing"; fi
if [ -z "$(ls "$T/dir" | grep -v '\.npy$')" ]; then pass; else fail "temporary files left in $T/dir: $(ls "$T/dir")"; fi

# text output to -o FILE, atomically (an existing file is replaced, only when all is well)
printf 'old\n' > "$T/o.csv"
run softmax "$T/floats" -o "$T/o.csv"; expect_code 0 "-o FILE"
expect_out_empty "-o FILE: nothing on stdout"
if [ "$(wc -l < "$T/o.csv")" -eq 2 ] && ! grep -q old "$T/o.csv"; then pass; else fail "-o FILE content: $(cat "$T/o.csv")"; fi
printf 'old\n' > "$T/o.csv"
run softmax "$T/ragged-does-not-exist" -o "$T/o.csv"; expect_code 3 "failed run with -o"
if [ "$(cat "$T/o.csv")" = old ]; then pass; else fail "a failed run touched the -o file"; fi
run softmax "$T/floats" -o -; expect_code 0 "-o - is standard output"
if [ "$(printf '%s\n' "$OUT" | wc -l)" -eq 2 ]; then pass; else fail "-o -: expected 2 rows on stdout"; fi
printf 'old\n' > "$T/real.csv"; ln -s real.csv "$T/link.csv"
run softmax "$T/floats" -o "$T/link.csv"; expect_code 0 "-o through a symbolic link"
if [ -L "$T/link.csv" ] && [ "$(wc -l < "$T/real.csv")" -eq 2 ]; then pass; else fail "-o replaced the link instead of its target"; fi
run softmax "$T/floats" -o /dev/null; expect_code 0 "-o /dev/null (not replaced by a rename)"
if [ -c /dev/null ]; then pass; else fail "/dev/null is no longer a character device"; fi
run softmax "$T/floats" -o "$T/no/such/dir/x.csv"; expect_code 1 "-o into a missing directory"
expect_err_has "attn: cannot write $T/no/such/dir/x.csv: No such file or directory" "-o write error message"
if [ -w /dev/full ]; then
    "$ATTN" softmax "$T/floats" > /dev/full 2> "$T/err"; CODE=$?
    expect_code 1 "stdout write error (/dev/full)"
    expect_err_has "write error: standard output" "stdout write error message"
fi

# pasted forms and attn's own output read back
run matmul "$F/pasted_numpy_repr.txt" "$T/I3"; expect_code 0 "numpy repr"
printf '0.43 0.15 0.89\n0.55 0.87 0.66\n' > "$T/expect"
expect_close "$T/expect" "$T/out" 1e-7 "numpy repr values"
run matmul "$F/pasted_torch_grad.txt" "$T/I3" --format tsv; expect_code 0 "torch repr with grad_fn"
printf '0.86 0.30 1.78\n1.10 1.74 1.32\n1.14 1.70 1.28\n' > "$T/expect"
expect_close "$T/expect" "$T/out" 1e-6 "torch repr values"
# csv → csv round trip: a softmax normalised again by its sum is unchanged
"$ATTN" softmax "$T/floats" --format csv > "$T/sm"
run softmax "$T/sm" --normalize sum; expect_code 0 "csv round trip"
expect_close "$T/sm" "$T/out" 1e-7 "csv output reads back"
run softmax "$T/floats" --format pretty
expect_out_has "softmax (2x3):" "pretty header"
run softmax "$T/floats" --format json
expect_out_has '"softmax": [' "json key"

# a second matrix in one input is an error, not a silent concatenation
printf '# scores 1x2\n1,2\n\n# weights 1x2\n0.5,0.5\n\n' > "$T/two"
run softmax "$T/two"; expect_code 3 "two csv blocks"
expect_err_has "attn: $T/two:4:1: a second matrix starts here; attn reads one matrix per input" "two blocks message"

# a closed pipe ends attn quietly (SIGPIPE, like coreutils), not with an error message; the
# output (about 1 MB) is far larger than a pipe buffer, so attn is still writing when head exits
awk 'BEGIN { for (i = 0; i < 4000; i++) { for (j = 0; j < 40; j++) printf "%s%d", (j ? " " : ""), (i * j) % 7; print "" } }' > "$T/big"
"$ATTN" softmax "$T/big" --format csv 2> "$T/err" | head -n 1 > "$T/out"
status=${PIPESTATUS[0]}
if [ "$status" -eq 141 ]; then pass; else fail "| head: attn exited $status"; fi
if [ ! -s "$T/err" ]; then pass; else fail "| head: stderr not empty: $(cat "$T/err")"; fi
if [ "$(wc -l < "$T/out")" -eq 1 ]; then pass; else fail "| head: expected one line"; fi

# ---- binary data that is not .npy: refused at its first NUL byte with its position, not read
# to the 2 GiB limit (an endless /dev/zero must not eat memory) ----
run softmax /dev/zero; expect_code 3 "/dev/zero"
expect_err_has "attn: /dev/zero:1:1: a NUL byte: binary data is neither text nor .npy" "/dev/zero message"
expect_out_empty "/dev/zero: no output"
printf '1 2\n3 4 # note\0\n' > "$T/nul"
run softmax "$T/nul"; expect_code 3 "NUL inside a comment"
expect_err_has "attn: $T/nul:2:11: a NUL byte" "NUL position (a comment must not hide it)"

# ---- "Output of attn must be valid input of attn": json and pretty (no labels) of one matrix ----
printf '1 2\n3 4\n' > "$T/m2"

"$ATTN" matmul "$T/m2" "$T/m2" --format json 2>/dev/null | "$ATTN" softmax - --scale 0 --format csv > "$T/out" 2> "$T/err"
CODE=$?; ERR=$(cat "$T/err"); expect_code 0 "json | softmax -"
printf '0.5 0.5\n0.5 0.5\n' > "$T/expect"   # scale 0: uniform, whatever the numbers read
expect_close "$T/expect" "$T/out" 1e-7 "json output read back"
"$ATTN" matmul "$T/m2" "$T/m2" --format json 2>/dev/null | "$ATTN" matmul - "$T/m2" --format csv > "$T/out" 2> "$T/err"
printf '37 54\n81 118\n' > "$T/expect"   # (m2·m2)·m2 by hand: [[7,10],[15,22]]·[[1,2],[3,4]]
expect_close "$T/expect" "$T/out" 0 "json product read back exactly"
"$ATTN" matmul "$T/m2" "$T/m2" --format pretty 2>/dev/null | "$ATTN" matmul - "$T/m2" --format csv > "$T/out" 2> "$T/err"
CODE=$?; ERR=$(cat "$T/err"); expect_code 0 "pretty | matmul -"
expect_close "$T/expect" "$T/out" 0 "pretty product read back"
