# Numeric lines alternating with comment lines or block headers: the text reader made a
# threaded scan per line (4 MB of "1" / "#" lines: 0.3 s with one thread, 11–77 s with two;
# attn's own csv of a (100000, 2, 8) tensor 60 times slower than a plain matrix). The bands
# are now chosen once: every read here must end within 20 s (well under a second here), with
# the values of the same text without its comment lines, for 1 and 2 threads alike.

yes 3 | head -n 1000000 > "$T/plain.txt"
sed 's/$/\n#/' "$T/plain.txt" > "$T/alternating.txt"  # 4 MB: "3" and "#" lines in turn
printf '1\n' > "$T/one.txt"
"$ATTN" matmul --threads 1 "$T/plain.txt" "$T/one.txt" --format npy -o "$T/want.npy"
for threads in 1 2; do
    timeout 20 "$ATTN" matmul --threads $threads "$T/alternating.txt" "$T/one.txt" --format npy -o "$T/got.npy" 2>"$T/err"
    code=$?
    if [ "$code" -eq 0 ] && cmp -s "$T/want.npy" "$T/got.npy"; then pass
    else fail "alternating comment lines, $threads threads: exit $code ($(cat "$T/err"))"; fi
    rm -f "$T/got.npy"
done

# attn's own csv of a (100000, 2, 8) tensor: a block header every two rows
"$ATTN" random --shape 100000,2,8 --seed 4 --format npy -o "$T/r.npy"
"$ATTN" concat "$T/r.npy" --format csv -o "$T/r.csv"
timeout 20 "$ATTN" concat "$T/r.csv" --format npy -o "$T/back.npy" 2>"$T/err"
code=$?
if [ "$code" -eq 0 ] && cmp -s "$T/r.npy" "$T/back.npy"; then pass
else fail "csv of a (100000, 2, 8) tensor read back: exit $code ($(cat "$T/err"))"; fi

# A comment that ends like a size in parentheses stays a comment ("(N,)", a vector's, is a
# header): "# note (3x1)" above a row of two was read as a wrong header.
printf '# note (3x1)\n1,2\n' > "$T/paren_comment.csv"
run concat "$T/paren_comment.csv" --format csv; expect_code 0 "a comment ending in (3x1)"
expect_out_has "1,2" "a comment ending in (3x1): the row"
