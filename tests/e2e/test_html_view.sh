# attend --html through the real binary.
# one self-contained page (what it draws is checked by make test-browser)
run attend -x "$ROOT/data/examples/masking/x.txt" --causal --html "$T/v.html" --show weights
expect_code 0 "attend --html"
if grep -q 'id="attn-data"' "$T/v.html" && ! grep -qE '(src|href)=' "$T/v.html"; then pass; else fail "--html page"; fi
run attend -x "$ROOT/data/examples/masking/x.txt" --html -; expect_code 2 "--html - refused"
run attend -x "$ROOT/data/examples/masking/x.txt" --html "$T/no/such/dir/v.html"; expect_code 1 "--html to an unwritable place"
# More than 2^22 weights: max-pooled, and the page says so. Zero queries and keys under a
# causal mask give row i the weight 1/(i+1) on keys 0..i, so pooled row I (queries 2I, 2I+1 in
# blocks of 2×2) is 1/(2I+1) on blocks 0..I and nothing (null) after: checked from the data.
yes 0 | head -n 2100 >"$T/z2100"
run attend -q "$T/z2100" -k "$T/z2100" -v "$T/z2100" --causal --html "$T/big.html" --show weights -o /dev/null
expect_code 0 "--html of 2100×2100 weights (over 2^22) is pooled, not refused"
grep -qF 'max-pooled from 2100×2100, blocks of 2×2' "$T/big.html" && pass || fail "the page states the pooling"
msg=$(sed -n 's/.*<script id="attn-data" type="application\/json">\(.*\)<\/script>.*/\1/p' "$T/big.html" \
    | sed -e 's/.*"w":\[\[//' -e 's/\]\],"m".*//' | awk 'BEGIN { RS = "\\],\\[" }
        { n = split($0, f, ","); r = NR - 1
          if (n != 1050) { print "row " r ": " n " values"; exit }
          for (k = 1; k <= n; k++) {
              if (k - 1 <= r) { d = f[k] - 1 / (2 * r + 1); if (d < 0) d = -d
                                if (f[k] == "null" || d > 1e-6 / (2 * r + 1)) { print "row " r " block " k - 1 ": " f[k]; exit } }
              else if (f[k] != "null") { print "row " r " block " k - 1 ": " f[k] " where all is masked"; exit }
          } }
        END { if (NR != 1050) print NR " rows" }')
[ -z "$msg" ] && pass || fail "pooled weights: $msg"
[ "$(wc -c <"$T/big.html")" -lt 20000000 ] && pass || fail "pooled page is small"

# A batch of multi-head weights: the page states (B, H, Tq, Tk) (it said (B·H, Tq, Tk)).
"$ATTN" random --seed 1 --shape 2,4,6 --format npy -o "$T/xb.npy"
run attend -x "$T/xb.npy" --heads 2 --html "$T/bh.html" -o /dev/null
expect_code 0 "--html of a batch with heads"
if grep -q 'shape (2, 2, 4, 4)' "$T/bh.html"; then pass; else fail "--html of B=2, H=2: the page does not state shape (2, 2, 4, 4)"; fi
