# --heatmap wraps to $COLUMNS in column blocks, as the pretty tables do: every line fits, and
# the blocks put side by side are the unwrapped picture.
"$ATTN" random --seed 3 --shape 30,4 --format csv >"$T/x30.csv"
COLUMNS=40 run attend -x "$T/x30.csv" --heatmap
expect_code 0 "heatmap at COLUMNS=40"
expect_out_has "columns 0–" "first block titled"
w=$(LC_ALL=C.UTF-8 wc -L <"$T/out")
[ "$w" -le 40 ] && pass || fail "heatmap at COLUMNS=40: a line is $w columns wide"
cp "$T/out" "$T/wrapped"
COLUMNS=1000 run attend -x "$T/x30.csv" --heatmap
grep -q "columns 0–" "$T/out" && fail "COLUMNS=1000: no blocks expected" || pass
# rows "NN cells...": join each row's cells across blocks (the labels are 2 wide + 1 space)
rows() { awk '/^ ?[0-9]+ / { k = $1 + 0; r[k] = r[k] substr($0, 4); if (k > n) n = k } END { for (i = 0; i <= n; i++) print i, r[i] }' "$1"; }
rows "$T/wrapped" >"$T/joined"; rows "$T/out" >"$T/whole"
[ "$(wc -l <"$T/whole")" -eq 30 ] && cmp -s "$T/joined" "$T/whole" && pass || fail "blocks side by side differ from the unwrapped heatmap"
[ "$(grep -c '^legend' "$T/wrapped")" -eq 1 ] && pass || fail "one legend after the blocks"

# Beyond 4 blocks the heatmap is max-pooled to fit instead, in square blocks for a square matrix: 200 keys at
# COLUMNS=80 (row labels "150–155" are 7 wide: 36 cells fit) are blocks of 6×6, and a matrix
# whose one nonzero weight is at (150, 77) has one full block, row 150–155 column 12 (keys 72–77).
awk 'BEGIN { for (i = 0; i < 200; i++) { s = ""; for (j = 0; j < 200; j++) s = s (j ? " " : "") (i == 150 && j == 77 ? 1 : 0); print s } }' >"$T/one_hot.txt"
COLUMNS=80 run view "$T/one_hot.txt" --heatmap; expect_code 0 "heatmap of 200x200 at COLUMNS=80"
expect_out_has "max-pooled from 200×200, blocks of 6×6 for 80 columns" "the pooling is stated"
w=$(LC_ALL=C.UTF-8 wc -L <"$T/out")
[ "$w" -le 80 ] && pass || fail "pooled heatmap at COLUMNS=80: a line is $w columns wide"
grep -q "columns 0–" "$T/out" && fail "pooled: no column blocks expected" || pass
[ "$(grep -c '^[0-9]*–[0-9]* ' "$T/out")" -eq 34 ] && pass || fail "pooled: 34 rows of blocks (0–5 … 198–199)"
full=$(grep -n '██' "$T/out" | cut -d: -f2-)
case $full in "150–155 "*) pass ;; *) fail "the full block is not in row 150–155: $full" ;; esac
prefix=${full%%██*}; prefix=${prefix#150–155 }
[ "${#prefix}" -eq 24 ] && pass || fail "the full block is not column 12 (keys 72–77): ${#prefix} characters before it"
[ "$(grep -o '██' "$T/out" | wc -l)" -eq 2 ] && pass || fail "one full block (and the legend's)"
# Masked cells pool as masked: under --causal, blocks above the diagonal have no visible weight.
"$ATTN" random --seed 4 --shape 200,4 --format csv >"$T/x200.csv"
COLUMNS=80 NO_COLOR=1 run attend -x "$T/x200.csv" --causal --heatmap; expect_code 0 "causal heatmap of 200 tokens"
row0=$(grep '^0–5 ' "$T/out")
case $row0 in "0–5     "[░▒▓█]*"××××"*) pass ;; *) fail "row 0–5: its first block visible, the rest masked: $row0" ;; esac
[ "$(grep '^0–5 ' "$T/out" | grep -o '××' | wc -l)" -eq 33 ] && pass || fail "row 0–5: 33 masked blocks"
grep -q '××' <(grep '^198–199 ' "$T/out") && fail "the last row of blocks sees every key" || pass
# Rows are pooled only as much as it takes to fit them in as many lines as there are columns (40
# queries, 300 keys at 80 columns: 33 columns of 9 keys, rows in blocks of 2, 20 lines; square
# blocks of 9 made them 5, and 10 queries over 9000 keys one), the note fits the width, and token
# labels that the pooling drops are said to need a wider line.
awk 'BEGIN { for (i = 0; i < 40; i++) { s = ""; for (j = 0; j < 300; j++) s = s (j ? " " : "") (j == 7 * i ? 1 : 0); print s } }' >"$T/w40x300.txt"
for i in $(seq 1 40); do echo "q$i"; done >"$T/q40.txt"
COLUMNS=80 run view "$T/w40x300.txt" --labels "$T/q40.txt" --key-labels <(for i in $(seq 1 300); do echo "k$i"; done) --heatmap
expect_code 0 "heatmap of 40x300 with labels"
expect_out_has "max-pooled from 40×300, blocks of 2×9 for 80 columns" "blocks of 2 rows for 40x300"
[ "$(grep -c '^[0-9]*–[0-9]* ' "$T/out")" -eq 20 ] && pass || fail "40 queries in 20 rows of blocks of 2"
expect_out_has "The token labels need COLUMNS=" "the dropped labels are named"
w=$(LC_ALL=C.UTF-8 wc -L <"$T/out")
[ "$w" -le 80 ] && pass || fail "pooled 40x300 at COLUMNS=80: a line is $w columns wide"
awk 'BEGIN { for (i = 0; i < 10; i++) { s = ""; for (j = 0; j < 9000; j++) s = s (j ? " " : "") (j == 900 * i ? 1 : 0); print s } }' >"$T/w10x9000.txt"
COLUMNS=80 run view "$T/w10x9000.txt" --heatmap
expect_out_has "max-pooled from 10×9000, blocks of 1×237 for 80 columns" "10 queries over 9000 keys keep their rows"
[ "$(grep -c '^[0-9] ' "$T/out")" -eq 10 ] && pass || fail "10 queries over 9000 keys: not 10 rows"
COLUMNS=40 run view "$T/w40x300.txt" --heatmap; expect_code 0 "heatmap of 40x300 at COLUMNS=40"
w=$(head -3 "$T/out" | LC_ALL=C.UTF-8 wc -L)
[ "$w" -le 40 ] && pass || fail "the pooling note wraps to COLUMNS=40: a line is $w wide"
