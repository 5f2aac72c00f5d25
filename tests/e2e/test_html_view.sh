# attend --html through the real binary.
# one self-contained page (what it draws is checked by make test-browser)
run attend -x "$ROOT/data/examples/masking/x.txt" --causal --html "$T/v.html" --show weights
expect_code 0 "attend --html"
if grep -q 'id="attn-data"' "$T/v.html" && ! grep -qE '(src|href)=' "$T/v.html"; then pass; else fail "--html page"; fi
run attend -x "$ROOT/data/examples/masking/x.txt" --html -; expect_code 2 "--html - refused"
run attend -x "$ROOT/data/examples/masking/x.txt" --html "$T/no/such/dir/v.html"; expect_code 1 "--html to an unwritable place"
# More than 2^22 weights: max-pooled, and the page says so. Zero queries and keys under a
# causal mask give row i the weight 1/(i+1) on keys 0..i, so pooled row I (queries 2I, 2I+1 in
# blocks of 2×2) is 1/(2I+1) on blocks 0..I and masked after: checked from the page's data,
# 8-bit codes round(255·w) and one mask bit a cell (bit i%8 of byte i/8), both base64.
yes 0 | head -n 2100 >"$T/z2100"
run attend -q "$T/z2100" -k "$T/z2100" -v "$T/z2100" --causal --html "$T/big.html" --show weights -o /dev/null
expect_code 0 "--html of 2100×2100 weights (over 2^22) is pooled, not refused"
grep -qF 'max-pooled from 2100×2100, blocks of 2×2' "$T/big.html" && pass || fail "the page states the pooling"
member() { grep -o "\"$1\":\"[^\"]*\"" "$T/big.html" | sed -e "s/^\"$1\":\"//" -e 's/"$//' | base64 -d | od -An -tu1 -v; }
msg=$( { member codes; echo END; member mask; } | awk '
        $1 == "END" { part = 1; next }
        { for (i = 1; i <= NF; i++) if (part) m[nm++] = $i; else c[nc++] = $i }
        END { if (nc != 1050 * 1050) { print nc " codes"; exit }
              for (r = 0; r < 1050; r++) for (k = 0; k < 1050; k++) {
                  i = r * 1050 + k; bit = int(m[int(i / 8)] / 2 ^ (i % 8)) % 2
                  if (k <= r) { if (bit || c[i] != int(255 / (2 * r + 1) + 0.5)) { print "row " r " block " k ": code " c[i] " mask " bit; exit } }
                  else if (!bit) { print "row " r " block " k ": not masked"; exit } } }')
[ -z "$msg" ] && pass || fail "pooled weights: $msg"
grep -qF '"exact":null' "$T/big.html" && pass || fail "no exact values beyond 2^20 weights"
[ "$(wc -c <"$T/big.html")" -lt 8000000 ] && pass || fail "pooled page is small"

# A batch of multi-head weights: the page states (B, H, Tq, Tk) (it said (B·H, Tq, Tk)).
"$ATTN" random --seed 1 --shape 2,4,6 --format npy -o "$T/xb.npy"
run attend -x "$T/xb.npy" --heads 2 --html "$T/bh.html" -o /dev/null
expect_code 0 "--html of a batch with heads"
if grep -q 'shape (2, 2, 4, 4)' "$T/bh.html"; then pass; else fail "--html of B=2, H=2: the page does not state shape (2, 2, 4, 4)"; fi
# A batch without heads: its slices are batch items (a batch selector), not heads (toggles, lines
# of both items overlaid); with --head of several items, the same.
run attend -x "$T/xb.npy" --html "$T/b.html" -o /dev/null
grep -qF '"lead":[["batch",2,[0,1]]],"names":["batch 0","batch 1"]' "$T/b.html" && pass || fail "--html of a batch without heads: $(grep -o '"lead":[^]]*]]' "$T/b.html")"
run attend -x "$T/xb.npy" --heads 2 --head 1 --html "$T/b1.html" -o /dev/null
grep -qF '"lead":[["batch",2,[0,1]]],"names":["batch 0, head 1","batch 1, head 1"]' "$T/b1.html" && pass || fail "--html --head 1 of a batch: $(grep -o '"lead":[^]]*]]' "$T/b1.html")"
# The page numbers heads and batch items as they are, not by their place in it (from an audit: the
# readout said head 0 for --head 1): the index each position stands for is in the data.
run attend -x "$T/xb.npy" --heads 2 --batch 1 --head 1 --html "$T/h1.html" -o /dev/null
grep -qF '"lead":[["head",1,[1]]]' "$T/h1.html" && pass || fail "--html --batch 1 --head 1: $(grep -o '"lead":[^]]*]]' "$T/h1.html")"
run attend -x "$T/xb.npy" --heads 2 --batch-items 1:2 --html "$T/bi.html" -o /dev/null
grep -qF '"lead":[["batch",1,[1]],["head",2,[0,1]]]' "$T/bi.html" && pass || fail "--html --batch-items 1:2: $(grep -o '"lead":[^]]*]]' "$T/bi.html")"

# attn model's page shows tokens as bertviz does: SentencePiece's "▁" (and GPT-2's "Ġ") as the
# space they stand for; the results keep the tokens. A Llama folder with a tokenizer of its own.
mkdir -p "$T/sp"
cp "$ROOT/data/models/tiny/llama/config.json" "$ROOT/data/models/tiny/llama/model.safetensors" "$T/sp/"
printf '%s' '{"normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
  {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}, "model": {"type": "BPE",
  "vocab": {"<unk>": 0, "▁": 1, "h": 2, "i": 3, "▁h": 4, "▁hi": 5, "Ġ": 6, "\t": 7}, "merges": ["▁ h", "▁h i"]}}' \
    >"$T/sp/tokenizer.json"
run model "$T/sp" --text "hi hi" --show tokens --format json --html "$T/sp.html"
expect_code 0 "model --text --html with a SentencePiece-style tokenizer"
expect_out_has '"▁hi"' "the results keep the tokens"
grep -qF '"q":[" hi"," hi"]' "$T/sp.html" && pass || fail "the page shows ▁ as a space: $(grep -o '"q":[^]]*]' "$T/sp.html")"
# json's labels are the tokens as they are: a tab token is "\u0009" (as tokenize's json has it),
# not the "?" the other formats show.
run model "$T/sp" --text "$(printf 'hi\thi')" --show tokens --format json
expect_out_has '"labels": ["▁hi", "\u0009", "h", "i"]' "model json: a tab token escaped, not '?'"

# More than 8192 keys (of fewer than 2^22 weights) are pooled too: a canvas that wide or a head
# view that tall stays blank in a browser (1 x 70000 was drawn as it is: a blank matrix view).
"$ATTN" random --seed 1 --shape 9000,2 --format npy -o "$T/k9000.npy"
"$ATTN" random --seed 2 --shape 1,2 --format npy -o "$T/q1.npy"
run attend -q "$T/q1.npy" -k "$T/k9000.npy" -v "$T/k9000.npy" --html "$T/wide.html" -o /dev/null
expect_code 0 "--html of 1 x 9000 weights"
grep -qF 'max-pooled from 1×9000' "$T/wide.html" && pass || fail "1 x 9000 weights not pooled: $(grep -o 'shape [^·]*' "$T/wide.html")"
