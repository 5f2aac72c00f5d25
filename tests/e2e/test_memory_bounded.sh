# Memory bounded by the input: a tall N×1 tensor (text lines, a float32 .npy, a bool .npy, a
# deflated .npz member) is held without padding each row to a 64-byte line, which took 16
# times its float32 data (a 29 KB .npz took 1.9 GB). Each read runs under ulimit -v of 32 MB
# for the program, twice the tensor's float32 data and the input's own size; rows padded to
# 16 floats need 16 times the data and fail. One thread: a worker's malloc arena reserves
# 64 MB of address space or not, as the scheduling falls. Skipped under sanitizers (they
# reserve terabytes of address space).

if [ -z "${ATTN_SANITIZER:-}" ]; then
    N=4000000                        # rows: 16 MB of float32 data
    data_kb=$((N * 4 / 1024))
    yes 1 | head -n $N > "$T/tall.txt"
    # npy_file PATH DESCR BYTES_PER_VALUE: an (N, 1) .npy of zeros, header as numpy.save writes it
    npy_file() {
        local dict="{'descr': '$2', 'fortran_order': False, 'shape': ($N, 1), }"
        local len=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 - 10 ))
        { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((len % 256)))\\x$(printf %02x $((len / 256)))"
          printf '%-*s\n' $((len - 1)) "$dict"; head -c $((N * $3)) /dev/zero; } > "$1"
    }
    npy_file "$T/tall_f4.npy" '<f4' 4
    npy_file "$T/tall_bool.npy" '|b1' 1
    inputs="tall.txt tall_f4.npy tall_bool.npy"
    if command -v python3 >/dev/null; then  # no python3: the .npz case is not checked, not counted
        python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], "a.npy")' \
            "$T/tall.npz" "$T/tall_f4.npy" && inputs="$inputs tall.npz:a"
    fi
    for input in $inputs; do
        file=$T/${input%:a}
        limit=$((32768 + 2 * data_kb + $(stat -c %s "$file") / 1024))
        ( ulimit -v $limit; exec "$ATTN" softmax --threads 1 "$T/$input" -o "$T/w.npy" ) >/dev/null 2>"$T/err"
        code=$?
        if [ "$code" -eq 0 ]; then pass; else fail "softmax of an ($N, 1) $input under ulimit -v $limit KB: exit $code ($(cat "$T/err"))"; fi
    done
    # the result is right: softmax of one column is 1 in every row (an (N, 1) float32 .npy of ones)
    run concat "$T/w.npy" --format csv
    if [ "$(sort -u "$T/out")" = "1" ] && [ "$(wc -l < "$T/out")" -eq "$N" ]; then pass; else fail "softmax of the tall column is not N ones"; fi
fi
