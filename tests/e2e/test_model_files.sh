# Model files through the real binary: FILE.npz:NAME and FILE.safetensors:NAME wherever a
# matrix is read, attn ls, and the errors for damaged files. Fixtures: data/models (numpy).

M="$ROOT/data/models"
printf '1 0 0\n0 1 0\n0 0 1\n' > "$T/I3"
printf '1.5 -2.25 0.125\n3 4.5 -0.5\n' > "$T/floats"   # the literals of make_models.py

for src in small.npz:floats small_compressed.npz:floats small.npz:floats64 single.npz \
           small.safetensors:floats_f32 small.safetensors:floats_f16 small.safetensors:floats_bf16; do
    run matmul "$M/$src" "$T/I3"; expect_code 0 "read $src"
    expect_close "$T/floats" "$T/out" 0 "$src values"
done

# a checkpoint's projection used directly: X·W_q with W_q = arange(12)/4 as 3x4
printf '1 0 0\n0 0 1\n' > "$T/x"
printf '0 0.25 0.5 0.75\n2 2.25 2.5 2.75\n' > "$T/xwq"
run attend -x "$T/x" --wq "$M/small.safetensors:wq" --wk "$M/small_compressed.npz:wq" --show queries,keys
expect_code 0 "attend with --wq/--wk from model files"
expect_close <(cat "$T/xwq" "$T/xwq") "$T/out" 1e-7 "projections from model files"

# attn ls
run ls "$M/small.safetensors"; expect_code 0 "ls safetensors"
expect_out_has "floats_bf16  BF16   (2, 3)" "ls shows dtype and shape"
expect_out_has "heads        F32    (2, 3, 4)" "ls shows a 3-D shape"
run ls "$M/small_compressed.npz"; expect_code 0 "ls npz"
expect_out_has "floats64  float64  (2, 3)" "ls npz float64"
expect_out_has "ints      int64    (2, 3)" "ls npz int64"
# Members attn cannot read are listed too, with the reason (ls failed as a whole on the first).
run ls "$M/unreadable.npz"; expect_code 0 "ls of an npz with members attn cannot read"
expect_out_has "floats  float32  (2, 3)" "ls: the readable member, without a note"
expect_out_has "scalar  float32  ()      not readable: 0-d array" "ls: a 0-d member, its shape and why"
expect_out_has "text    <U2      -       not readable: unsupported dtype '<U2'" "ls: a string member, no shape"
expect_out_has "empty   float32  (0, 3)  not readable: empty array" "ls: an empty member"
run softmax "$M/unreadable.npz:scalar"; expect_code 3 "reading the 0-d member is refused"
run ls "$M/wrong_dtype.safetensors"; expect_code 0 "ls safetensors with an I64 tensor"
expect_out_has "ids         I64    (2, 3)  not readable: dtype I64 is not supported" "ls: the I64 tensor's note"
run ls "$M/small.safetensors"
if grep -q NOTE "$T/out"; then fail "ls: a NOTE column with nothing to note"; else pass; fi
run ls; expect_code 2 "ls without a file"
run ls "$M/absent.npz"; expect_code 3 "ls of a missing file"
run ls "$ROOT/data/fixtures/floats_le_f4_c.npy"; expect_code 3 "ls of an .npy"
expect_err_has "an .npy file holds one array" "ls of an .npy says why"

# errors: exit 3 (2 for an empty name), a message naming file and tensor, nothing on stdout
run softmax "$M/small.npz"; expect_code 3 "bare npz with several arrays"
expect_err_has "holds 5 arrays (floats, wq, floats64, heads, ints): name one as" "lists the arrays"
run softmax "$M/small.npz:nope"; expect_code 3 "missing array"
expect_err_has "no array 'nope'" "missing array named"
run softmax "$M/small.npz:"; expect_code 2 "empty tensor name"
run softmax "$M/wrong_dtype.safetensors:ids"; expect_code 3 "I64 refused"
expect_err_has "attn: $M/wrong_dtype.safetensors:ids: dtype I64 is not supported (attn reads F32, F16, BF16 and F64)" "I64 message"
expect_out_empty "I64: no output"
run attend -x "$T/I3" --wq "$M/small.safetensors:heads"; expect_code 3 "3-D tensor where a matrix is expected"
expect_err_has "shape (2, 3, 4) has 3 dimensions: at most 2 are supported here" "3-D message"
head -c 300 "$M/small.safetensors" > "$T/cut.safetensors"
run softmax "$T/cut.safetensors:floats_f32"; expect_code 3 "truncated safetensors"
expect_err_has "truncated" "truncated safetensors message"
head -c 700 "$M/small_compressed.npz" > "$T/cut.npz"
run softmax "$T/cut.npz:floats"; expect_code 3 "truncated npz"
expect_err_has "attn: $T/cut.npz: truncated or damaged zip archive" "truncated npz message"
printf '\x10\x00\x00\x00\x00\x00\x00\x00{"a":{"dtype":1}' > "$T/bad.safetensors"
run softmax "$T/bad.safetensors:a"; expect_code 3 "malformed safetensors header"
expect_err_has "malformed header" "malformed header message"
# A tensor named in UTF-8 (ü) is named as it is in messages ('??' before), as attn ls shows it.
h='{"\xc3\xbc":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
len=$(printf "$h" | wc -c); pad=$(( (8 - len % 8) % 8 ))
{ printf "\\x$(printf %02x $((len + pad)))\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; printf "$h"; printf "%${pad}s" ''
  printf '\x00\x00\x80\x3f'; } > "$T/utf8name.safetensors"
run softmax "$T/utf8name.safetensors:x"; expect_code 3 "a name not in the file"
expect_err_has "no tensor 'x' (it holds: ü)" "a UTF-8 tensor name is shown as it is"
run softmax "$T/utf8name.safetensors:ü"; expect_code 0 "the UTF-8 name reads"
cp "$M/small.npz" "$T/crc.npz"
printf '\x41' | dd of="$T/crc.npz" bs=1 seek=200 conv=notrunc status=none   # inside floats' data
run softmax "$T/crc.npz:floats"; expect_code 3 "CRC mismatch"
expect_err_has "CRC mismatch" "CRC message"


# Members "a.npy" = [1, 2] and "a" = [[5, 6, 7]] (tests/bad/npz_name_collision.case says how it
# was made): FILE.npz:a is the member "a", as numpy.load(f)["a"] is; ls names each member so
# that the name reads it.
C="$ROOT/tests/bad/data/npz_name_collision.npz"
run ls "$C"; expect_code 0 "ls of an npz with members a.npy and a"
expect_out_has "a.npy  float32  (2,)" "ls: a.npy beside a is listed as a.npy"
expect_out_has "a      float32  (1, 3)" "ls: the member a"
# softmax([5, 6, 7]) and softmax([1, 2]), computed by hand: e^k / sum.
printf '0.0900305732 0.2447284711 0.6652409558\n' > "$T/expect"
run softmax "$C:a"; expect_code 0 "read FILE.npz:a beside a.npy"
expect_close "$T/expect" "$T/out" 1e-6 "FILE.npz:a is the member a, as in numpy"
printf '0.2689414214 0.7310585786\n' > "$T/expect"
run softmax "$C:a.npy"; expect_code 0 "read FILE.npz:a.npy beside a"
expect_close "$T/expect" "$T/out" 1e-6 "FILE.npz:a.npy is the member a.npy"

# A path that exists as a file is read as that file, even with ".npz:" or ".safetensors:" in
# its name: concat 'a.npz:b.txt' failed with "a.npz: No such file" (second audit, F11). The
# split still applies when no such file exists, and beside a real model file of that name.
mkdir "$T/colon"
printf '1 2\n3 4\n' > "$T/colon/a.npz:b.txt"
printf '5 6\n' > "$T/colon/m.safetensors:x"
printf '1,2\n3,4\n' > "$T/colon/expected"
for p in "a.npz:b.txt" "$T/colon/a.npz:b.txt"; do
    (cd "$T/colon" && "$ATTN" concat "$p" --format csv >"$T/out" 2>"$T/err"); CODE=$?; ERR=$(cat "$T/err")
    expect_code 0 "concat '$p' (an existing file)"
    if cmp -s "$T/colon/expected" "$T/out"; then pass; else fail "concat '$p': $(head -c 200 "$T/out")"; fi
done
cp "$M/small.npz" "$T/colon/small.npz"
printf '9 9 9\n' > "$T/colon/small.npz:floats"
run matmul "$T/colon/small.npz:floats" "$T/I3" --format csv; expect_code 0 "an existing 'small.npz:floats' beside small.npz"
if [ "$OUT" = "9,9,9" ]; then pass; else fail "an existing 'small.npz:floats' was not read as that file: $OUT"; fi
run matmul "$T/colon/small.npz:floats64" "$T/I3"; expect_code 0 "small.npz:floats64 (no such file) is the member"
expect_close "$T/floats" "$T/out" 0 "small.npz:floats64 values"
run softmax "$T/colon/m.safetensors:x" --format csv; expect_code 0 "softmax 'm.safetensors:x' (an existing file)"
