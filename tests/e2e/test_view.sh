# attn view WEIGHTS: pictures of attention weights computed elsewhere (shapes, labels,
# selection, errors, the page's size at 512 tokens x 12 layers x 12 heads). What the page
# draws in a browser is checked by make test-browser.
F="$ROOT/data/models/weights_l2b1h3.npy"   # (L, B, H, T, T) = (2, 1, 3, 6, 6), numpy's softmax
FT="$ROOT/data/models/weights_l2b1h3.txt"  # the same, "SLICE QUERY KEY WEIGHT", slice = l*3 + h

# Every shape from one matrix to (L, B, H, T, T): the page states the shape and its dimensions.
printf '0.25 0.75\n1 0\n' >"$T/m.txt"
run view "$T/m.txt" --html "$T/m.html"; expect_code 0 "view of a 2x2 matrix"
grep -qF 'shape (2, 2)' "$T/m.html" && grep -qF '"lead":[]' "$T/m.html" && pass || fail "2-D page: shape, no leading dims"
"$ATTN" random --shape 2,3,4,4 --seed 1 -o "$T/s4.npy"
"$ATTN" softmax "$T/s4.npy" -o "$T/w4.npy"
"$ATTN" random --shape 3,4,4 --seed 2 -o "$T/s3.npy"
"$ATTN" softmax "$T/s3.npy" -o "$T/w3.npy"
run view "$T/w3.npy" --html "$T/w3.html"; expect_code 0 "view of (H, T, T)"
grep -qF '"lead":[["head",3,[0,1,2]]]' "$T/w3.html" && pass || fail "(3, 4, 4): heads"
run view "$T/w4.npy" --html "$T/w4.html"; expect_code 0 "view of (B, H, T, T)"
grep -qF '"lead":[["batch",2,[0,1]],["head",3,[0,1,2]]]' "$T/w4.html" && pass || fail "(2, 3, 4, 4): batch, heads"
run view "$T/w4.npy" --dims layer,head --html "$T/w4l.html"; expect_code 0 "--dims layer,head"
grep -qF '"lead":[["layer",2,[0,1]],["head",3,[0,1,2]]]' "$T/w4l.html" && pass || fail "--dims names the leading dims"
run view "$F" --html "$T/w5.html"; expect_code 0 "view of (L, B, H, T, T)"
grep -qF 'shape (2, 1, 3, 6, 6)' "$T/w5.html" && grep -qF '"lead":[["layer",2,[0,1]],["batch",1,[0]],["head",3,[0,1,2]]]' "$T/w5.html" \
    && pass || fail "(2, 1, 3, 6, 6): layer, batch, head"
grep -qE '(src|href)=|url\(|@import' "$T/w5.html" && fail "the page refers to another resource" || pass

# The page's exact values (float32, base64, little-endian) are numpy's, slice by slice;
# --layer 1 --head 2 keeps slice 5 alone.
exact() { grep -o '"exact":"[^"]*"' "$1" | sed -e 's/^"exact":"//' -e 's/"$//' | base64 -d | od -An -tf4 -v -w4; }
exact "$T/w5.html" >"$T/e5"
awk '{ print $4 }' "$FT" >"$T/n5"
expect_close "$T/n5" "$T/e5" 1e-7 "(L, B, H, T, T) page holds numpy's weights"
run view "$F" --layer 1 --head 2 --html "$T/one.html"; expect_code 0 "--layer 1 --head 2"
grep -qF 'shape (1, 6, 6)' "$T/one.html" && grep -qF '"names":["layer 1, batch 0, head 2"]' "$T/one.html" \
    && pass || fail "--layer 1 --head 2 keeps that slice, named"
exact "$T/one.html" >"$T/e1"
awk '$1 == 5 { print $4 }' "$FT" >"$T/n1"
expect_close "$T/n1" "$T/e1" 1e-7 "--layer 1 --head 2: numpy's slice 5"

# The terminal heatmap and the SVG of a slice, and the SVG grid of several.
run view "$F" --layer 0 --head 1 --heatmap; expect_code 0 "--heatmap"
expect_out_has "layer 0, batch 0, head 1:" "--heatmap titles the slice"
expect_out_has "legend:" "--heatmap draws"
run view "$F" --layer 0 --head 1 --svg "$T/one.svg"; expect_code 0 "--svg of one slice"
[ "$(grep -o 'class="cell"' "$T/one.svg" | wc -l)" -eq 36 ] && pass || fail "--svg: 36 cells"
run view "$F" --svg "$T/grid.svg"; expect_code 0 "--svg of 6 slices"
[ "$(grep -o 'class="cell"' "$T/grid.svg" | wc -l)" -eq 216 ] && pass || fail "--svg grid: 6 x 36 cells"
grep -qF 'layer 1, batch 0, head 2' "$T/grid.svg" && pass || fail "--svg grid names the panels"
# 16 heads of 128 tokens: max-pooled to at most 2^15 cells (it was 262,144 cells, 24 MB), as noted.
"$ATTN" random --shape 16,128,128 --seed 4 -o "$T/s16.npy"
"$ATTN" softmax "$T/s16.npy" -o "$T/w16.npy"
run view "$T/w16.npy" --svg "$T/g16.svg"; expect_code 0 "--svg of 16 heads of 128x128"
cells=$(grep -o 'class="cell' "$T/g16.svg" | wc -l)
[ "$cells" -le 32768 ] && [ "$(wc -c <"$T/g16.svg")" -lt 4000000 ] && pass || fail "--svg grid of 16x128x128: $cells cells, $(wc -c <"$T/g16.svg") bytes"
grep -qF 'max-pooled from 128×128, blocks of 3×3' "$T/g16.svg" && pass || fail "--svg grid states its pooling"
run view "$F" --svg -; expect_code 0 "--svg - alone"
expect_out_has "<svg" "--svg - writes the SVG to standard output"

# Labels: for queries and keys, the A/B split after [SEP], the count checked.
printf '%s\n' '[CLS]' time flies '[SEP]' fruit '[SEP]' >"$T/pair.txt"
run view "$F" --labels "$T/pair.txt" --html "$T/lab.html"; expect_code 0 "--labels"
grep -qF '"q":["[CLS]","time","flies","[SEP]","fruit","[SEP]"]' "$T/lab.html" && grep -qF '"sentB":4' "$T/lab.html" \
    && pass || fail "labels in the page, sentence B after the first [SEP]"
run view "$F" --labels "$T/pair.txt" --sentence-b 2 --html "$T/lab2.html"; expect_code 0 "--sentence-b"
grep -qF '"sentB":2' "$T/lab2.html" && pass || fail "--sentence-b 2"
printf 'a\nb\nc\nd\n' >"$T/k4.txt"
run view "$F" --labels "$T/k4.txt" --html "$T/x.html"; expect_code 3 "4 labels for 6 tokens"
expect_err_has "4 labels for 6 queries" "the label count is named"
printf '0.5 0.5 0\n0 0.5 0.5\n' >"$T/r23.txt"
printf 'q0\nq1\n' >"$T/q2.txt"; printf 'k0\nk1\nk2\n' >"$T/k3.txt"
run view "$T/r23.txt" --labels "$T/q2.txt" --key-labels "$T/k3.txt" --html "$T/qk.html"; expect_code 0 "Tq != Tk with --key-labels"
grep -qF '"k":["k0","k1","k2"]' "$T/qk.html" && pass || fail "--key-labels in the page"
run view "$T/r23.txt" --labels "$T/q2.txt" --html "$T/x.html"; expect_code 2 "Tq != Tk without --key-labels"
expect_err_has "--key-labels" "the remedy is named"

# Bad input: not weights, wrong shapes, bad selections, nothing to draw.
run view "$T/s4.npy" --html "$T/x.html"; expect_code 3 "scores are not weights"
expect_err_has "batch 0, head 0, query 0, key 0" "the place of the first bad entry"
expect_err_has "attn softmax" "the remedy for scores"
[ -e "$T/x.html" ] && fail "no page is written for bad input" || pass
printf '0.5 nan\n0 1\n' >"$T/nan.txt"
run view "$T/nan.txt" --html "$T/x.html"; expect_code 3 "NaN is not a weight"
expect_err_has "query 0, key 1: nan" "the NaN's place"
printf '0.5 0.5 0\n' >"$T/vec.txt"
run view "$T/vec.txt" --html "$T/x.html"; expect_code 0 "one row is a 1x3 matrix"
printf '[0.5, 0.5]\n' >"$T/rank1.txt"
run view "$T/rank1.txt" --html "$T/x.html"; expect_code 3 "a vector is not a weights matrix"
run view "$F"; expect_code 2 "nothing to draw"
expect_err_has "--heatmap, --svg FILE or --html FILE" "what to give is named"
run view --html "$T/x.html"; expect_code 2 "no WEIGHTS"
run view "$F" --layer 2 --html "$T/x.html"; expect_code 3 "--layer beyond the layers (an input error, as attn model's)"
run view "$T/w3.npy" --layer 0 --html "$T/x.html"; expect_code 2 "--layer without a layer dimension"
expect_err_has "no layer dimension" "--layer without a layer dimension is explained"
run view "$F" --dims layer,head --html "$T/x.html"; expect_code 2 "--dims with too few names"
run view "$T/w4.npy" --dims head,layer --html "$T/x.html"; expect_code 2 "--dims out of order"
run view "$F" --sentence-b 6 --html "$T/x.html"; expect_code 2 "--sentence-b beyond the tokens"
run view "$F" --heatmap --svg -; expect_code 2 "--svg - with --heatmap"
run view "$T/no-such.npy" --html "$T/x.html"; expect_code 3 "a missing file"

# 12 layers x 12 heads of 512 tokens: a page of at most 8 MB (8-bit codes, max-pooled).
"$ATTN" random --shape 12,12,512,512 --seed 3 -o "$T/big_scores.npy"
"$ATTN" softmax "$T/big_scores.npy" -o "$T/big.npy"
rm -f "$T/big_scores.npy"
run view "$T/big.npy" --dims layer,head --html "$T/big.html"; expect_code 0 "view of 12x12x512x512"
rm -f "$T/big.npy"
size=$(wc -c <"$T/big.html")
[ "$size" -le 8000000 ] && pass || fail "512x12x12 page: $size bytes, more than 8 MB"
grep -qF '"lead":[["layer",12,[0,1,2,3,4,5,6,7,8,9,10,11]],["head",12,[0,1,2,3,4,5,6,7,8,9,10,11]]]' "$T/big.html" && pass || fail "512x12x12: every layer and head in the page"

# A picture that cannot be written fails the run with nothing on standard output (the heatmap
# was printed before the SVG failed) and no other picture left behind.
run view "$F" --heatmap --svg "$T/no/such/dir/a.svg" --html "$T/fail.html"
expect_code 1 "--svg into a missing folder"
if [ -s "$T/out" ] || [ -e "$T/fail.html" ]; then fail "a failed view run printed or wrote: $(head -c 200 "$T/out")"; else pass; fi
