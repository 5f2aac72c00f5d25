# Fast file paths give the bytes of the slow ones: a mapped file and the same bytes through
# standard input (read whole), a long run of rows (read by all threads in bands) through a
# csv -> npy -> csv round trip, and npy written from the result rows to a file and to a pipe.

# 3000 x 40 values (over 1 MiB of text) from attn random, which prints 9 significant digits.
"$ATTN" random --shape 3000,40 --seed 8 --format npy -o "$T/m.npy"
"$ATTN" concat "$T/m.npy" --format csv >"$T/m.csv"
if [ "$(stat -c %s "$T/m.csv")" -gt 1048576 ]; then pass; else fail "the csv is over 1 MiB"; fi

run concat "$T/m.csv" --format npy -o "$T/back.npy"
expect_code 0 "csv file -> npy"
if cmp -s "$T/m.npy" "$T/back.npy"; then pass; else fail "csv of 9 digits reads back to the same float32 bits"; fi

run_in "$T/m.csv" concat - --format npy -o "$T/stdin.npy"
expect_code 0 "csv from standard input -> npy"
if cmp -s "$T/back.npy" "$T/stdin.npy"; then pass; else fail "a mapped file and standard input read alike"; fi

run concat "$T/back.npy" --format csv -o "$T/again.csv"
if cmp -s "$T/m.csv" "$T/again.csv"; then pass; else fail "npy -> csv -> npy -> csv is stable"; fi

# npy to a pipe: the same bytes as to a file.
"$ATTN" concat "$T/m.csv" --format npy | cat >"$T/pipe.npy"
if cmp -s "$T/back.npy" "$T/pipe.npy"; then pass; else fail "npy to a pipe equals npy to a file"; fi

# A short row deep in the long run is reported at its line, as in a short file.
{ head -n 2500 "$T/m.csv"; echo "1,2"; tail -n +2501 "$T/m.csv"; } >"$T/short.csv"
run concat "$T/short.csv" --format npy -o "$T/x.npy"
expect_code 3 "a short row in a long run"
expect_err_has "short.csv:2501: row has 2 values, expected 40" "its line and counts"
if [ ! -e "$T/x.npy" ]; then pass; else fail "no output file after the error"; fi
