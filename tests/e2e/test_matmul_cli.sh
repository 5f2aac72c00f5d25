# attn matmul through the real binary. Expected products: worked by hand for the small
# cases, and computed by awk in double precision for seeded random shapes.

printf '1 2 3\n4 5 6\n' > "$T/A"          # 2x3
printf '1 0\n0 1\n2 -1\n' > "$T/B"        # 3x2
printf '7 -1\n16 -1\n' > "$T/expect"      # A·B by hand
run matmul "$T/A" "$T/B"; expect_code 0 "A·B"
expect_close "$T/expect" "$T/out" 0 "A·B"
printf '1 1 1\n0 2 0\n' > "$T/C"          # 2x3; A·Cᵀ = [[6,4],[15,10]]
printf '6 4\n15 10\n' > "$T/expect"
run matmul "$T/A" "$T/C" --transpose-b; expect_code 0 "A·Cᵀ"
expect_close "$T/expect" "$T/out" 0 "A·Cᵀ"

# one input from standard input, formats
run_in "$T/B" matmul "$T/A" - --format tsv; expect_code 0 "B from stdin"
if [ "$OUT" = $'7\t-1\n16\t-1' ]; then pass; else fail "tsv product: got $OUT"; fi
run matmul "$T/A" "$T/B" --format json
if [ "$OUT" = $'{\n  "product": [\n    [7, -1],\n    [16, -1]\n  ]\n}' ]; then pass; else fail "json product: got $OUT"; fi
run matmul "$T/A" "$T/B" --format pretty
if [ "$OUT" = $'product (2x2):\n   7.0000  -1.0000\n  16.0000  -1.0000' ]; then pass; else fail "pretty product: got $OUT"; fi

# seeded random shapes, including T=1, d=1 and odd sizes, against a float64 awk reference
rand_matrix() {  # rand_matrix ROWS COLS SEED
    awk -v r="$1" -v c="$2" -v s="$3" 'BEGIN { srand(s); for (i = 0; i < r; i++) { line = "";
        for (j = 0; j < c; j++) line = line (j ? " " : "") sprintf("%.6f", rand() * 4 - 2); print line } }'
}
ref_product() {  # ref_product A B TRANSPOSE(0|1)
    awk -v t="$3" 'FNR == 1 { f++ } f == 1 { for (j = 1; j <= NF; j++) a[FNR, j] = $j; ar = FNR; ac = NF }
        f == 2 { for (j = 1; j <= NF; j++) b[FNR, j] = $j; br = FNR; bc = NF }
        END { n = t ? br : bc; for (i = 1; i <= ar; i++) { line = "";
            for (j = 1; j <= n; j++) { s = 0; for (p = 1; p <= ac; p++) s += a[i, p] * (t ? b[j, p] : b[p, j]);
                line = line (j > 1 ? " " : "") sprintf("%.9f", s) } print line } }' "$1" "$2"
}
seed=1
for shape in "1 1 1" "1 5 3" "7 13 5" "3 1 4" "17 16 1" "33 17 9"; do
    read -r m k n <<<"$shape"  # (not `set --`: run.sh still needs its own $2)
    rand_matrix "$m" "$k" $seed > "$T/RA"
    rand_matrix "$k" "$n" $((seed + 100)) > "$T/RB"
    rand_matrix "$n" "$k" $((seed + 200)) > "$T/RBt"
    ref_product "$T/RA" "$T/RB" 0 > "$T/expect"
    run matmul "$T/RA" "$T/RB"; expect_code 0 "random $shape"
    expect_close "$T/expect" "$T/out" 2e-5 "random A·B ${m}x$k · ${k}x$n"
    ref_product "$T/RA" "$T/RBt" 1 > "$T/expect"
    run matmul "$T/RA" "$T/RBt" --transpose-b --arch scalar; expect_code 0 "random transposed $shape"
    expect_close "$T/expect" "$T/out" 2e-5 "random A·Bᵀ ${m}x$k · (${n}x$k)ᵀ"
    seed=$((seed + 1))
done

# npy in and out: fortran-order float64 times big-endian float32 (fixtures from numpy);
# F·Fᵀ of [[1.5,-2.25,0.125],[3,4.5,-0.5]] by hand
printf '7.328125 -5.6875\n-5.6875 29.5\n' > "$T/expect"
run matmul "$ROOT/data/fixtures/floats_le_f8_fortran.npy" "$ROOT/data/fixtures/floats_be_f4_c.npy" --transpose-b
expect_code 0 "npy inputs"
expect_close "$T/expect" "$T/out" 0 "npy fortran f8 · big-endian f4ᵀ"

# ---- errors ----
run matmul "$T/A" "$T/A"; expect_code 3 "shape mismatch"
expect_err_has "attn: cannot multiply $T/A (2x3) by $T/A (2x3): A has 3 columns, B has 2 rows" "shape mismatch names both shapes"
expect_out_empty "shape mismatch: no output"
run matmul "$T/A" "$T/B" --transpose-b; expect_code 3 "shape mismatch transposed"
expect_err_has "by the transpose of $T/B (3x2): A has 3 columns, Bᵀ has 2 rows" "transposed mismatch message"
run matmul - -; expect_code 2 "both inputs from stdin"
expect_err_has "at most one input may be '-'" "two stdin message"
run matmul "$T/A"; expect_code 2 "missing B"
expect_err_has "missing input" "missing B message"
run matmul "$T/A" "$T/B" "$T/C"; expect_code 2 "three inputs"
printf '1 inf\n' > "$T/inf"
run matmul "$T/inf" "$T/B"; expect_code 3 "inf in A"
expect_err_has "attn: $T/inf:1:3: non-finite value 'inf' is not allowed here" "inf message"
printf '1 -inf\n' > "$T/ninf"
run matmul "$T/A" "$T/ninf"; expect_code 3 "-inf in B"
run matmul "$T/A" "$T/B" --arch bogus; expect_code 2 "--arch bogus"

run matmul --help; expect_code 0 "matmul --help"
for opt in --transpose-b --format --digits --output --arch --threads "A B"; do
    expect_out_has "$opt" "matmul --help mentions $opt"
done

# ---- an overflowing product is a numeric failure, never an 'inf' passed off as a result ----
printf '1e20 1e20\n' > "$T/big"            # 1e20·1e20 + 1e20·1e20 = 2e40 > FLT_MAX
printf '1e20\n1e20\n' > "$T/bigcol"
run matmul "$T/big" "$T/bigcol"; expect_code 1 "overflowing product"
expect_err_has "attn: product row 0, column 0 (0-based) is infinite: the inputs overflow float32" "overflow message"
expect_out_empty "overflowing product: no output"

# ---- a boolean flag given a value: --transpose-b=false means A·B ----
printf '7 -1\n16 -1\n' > "$T/expect"      # A·B by hand (above)
run matmul "$T/A" "$T/B" --transpose-b=false; expect_code 0 "--transpose-b=false"
expect_close "$T/expect" "$T/out" 0 "--transpose-b=false multiplies by B itself"

# ---- batched: leading dimensions broadcast as torch.matmul's -----------------------------------
# (2, 2)·(2, 2, 2): A against the identity and the swap; hand-computed, exact in float32.
printf '1 2\n3 4\n' >"$T/A22"
printf '# B [0] 2x2\n1 0\n0 1\n\n# B [1] 2x2\n0 1\n1 0\n' >"$T/B222"
run matmul "$T/A22" "$T/B222" --format csv; expect_code 0 "matmul (2,2)·(2,2,2)"
printf '1 2\n3 4\n2 1\n4 3\n' >"$T/expect"
expect_close "$T/expect" "$T/out" 0 "matmul (2,2)·(2,2,2): A·I and A·swap"
expect_out_has "# product [1] 2x2" "matmul (2,2)·(2,2,2): the result is (2, 2, 2)"
# (2, 1, 2, 2)·(3, 2, 2) broadcasts to (2, 3, 2, 2); --transpose-b transposes each slice.
"$ATTN" random --seed 5 --shape 2,1,2,2 --format npy -o "$T/a4.npy"
"$ATTN" random --seed 6 --shape 3,2,2 --format npy -o "$T/b3.npy"
run matmul "$T/a4.npy" "$T/b3.npy" --format csv; expect_code 0 "matmul (2,1,2,2)·(3,2,2)"
expect_out_has "# product [1, 2] 2x2" "matmul (2,1,2,2)·(3,2,2): the result is (2, 3, 2, 2)"
# Each result slice is the 2-D product of the slices it broadcasts from (the 2-D path is
# checked against the worked examples above): slice [1, 2] = A[1, 0]·B[2].
"$ATTN" concat "$T/a4.npy" --format csv | awk '/^# /{n++} n==2 && !/^#/ && NF' >"$T/a10"
"$ATTN" concat "$T/b3.npy" --format csv | awk '/^# /{n++} n==3 && !/^#/ && NF' >"$T/b2"
"$ATTN" matmul "$T/a10" "$T/b2" --format csv >"$T/want12"
awk '/^# /{n++} n==6 && !/^#/ && NF' "$T/out" >"$T/got12"
if [ "$(wc -l <"$T/got12")" -eq 2 ] && [ "$(wc -l <"$T/want12")" -eq 2 ]; then pass; else fail "matmul batched: slice [1, 2] not found"; fi
expect_close "$T/want12" "$T/got12" 0 "matmul (2,1,2,2)·(3,2,2): slice [1, 2] is A[1, 0]·B[2]"
run matmul "$T/A22" "$T/B222" --transpose-b --format csv; expect_code 0 "matmul --transpose-b batched"
printf '1 2\n3 4\n2 1\n4 3\n' >"$T/expect"   # I and the swap are symmetric
expect_close "$T/expect" "$T/out" 0 "matmul --transpose-b (2,2)·(2,2,2)ᵀ"
# Batch dimensions that do not broadcast, and an inner mismatch, name both shapes.
"$ATTN" random --seed 1 --shape 3,2,2 --format npy -o "$T/b322.npy"
"$ATTN" random --seed 1 --shape 2,2,2 --format npy -o "$T/a222.npy"
run matmul "$T/a222.npy" "$T/b322.npy"; expect_code 3 "matmul (2,2,2)·(3,2,2)"
expect_err_has "cannot broadcast the batch dimensions" "matmul (2,2,2)·(3,2,2): message"
expect_err_has "(2, 2, 2) and" "matmul (2,2,2)·(3,2,2): names A's shape"
run matmul "$T/a222.npy" "$T/A22" --transpose-b; expect_code 0 "matmul (2,2,2)·(2,2)ᵀ"
"$ATTN" random --seed 1 --shape 2,3 --format npy -o "$T/a23.npy"
run matmul "$T/a222.npy" "$T/a23.npy" --transpose-b; expect_code 3 "matmul inner mismatch batched"
expect_err_has "A has 2 columns, Bᵀ has 3 rows" "matmul inner mismatch batched: message"

# torch.matmul's vectors (a 1-D .npy or a bracketed [a, b, ...]): a 1-D A is a row, a 1-D B a
# column, and the product drops that dimension; two vectors give their dot product as (1,).
printf '[1, 2, 3]\n' > "$T/v3"
printf '[4, 5, 6]\n' > "$T/w3"
printf '1 0\n0 1\n1 1\n' > "$T/m32"
printf '1 0 1\n0 1 1\n' > "$T/m23"
printf '[[[1, 0, 0]], [[0, 1, 1]]]\n' > "$T/t213"
for spec in "v3 m32||[4, 5]" "m23 v3||[4, 5]" "m23 v3|--transpose-b|[4, 5]" "v3 w3||[32]" "v3 w3|--transpose-b|[32]" \
            "t213 v3||[[1], [5]]"; do
    IFS='|' read -r files flag want <<<"$spec"
    read -r fa fb <<<"$files"
    # shellcheck disable=SC2086 # flag: none or one word
    run matmul "$T/$fa" "$T/$fb" $flag --format json
    expect_code 0 "matmul $fa·$fb $flag"
    got=$(tr -d ' \n' <<<"$OUT")
    want_json=$(tr -d ' ' <<<"{\"product\":$want}")
    if [ "$got" = "$want_json" ]; then pass; else fail "matmul $fa·$fb $flag: $got, expected $want_json"; fi
done
run matmul "$T/m32" "$T/v3"
expect_code 3 "matmul (3, 2)·(3,): A has 2 columns"
expect_err_has "by the vector" "matmul by a vector of the wrong length: message"
expect_err_has "A has 2 columns, B has 3 entries" "matmul by a vector of the wrong length: the counts"
