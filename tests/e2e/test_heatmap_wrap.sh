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
