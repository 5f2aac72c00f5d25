# Pretty printing through the real binary: PyTorch's notation rule, --digits, wrapping to
# $COLUMNS. Expected text: what PyTorch 2.x prints with torch.set_printoptions(precision=4)
# (quoted in the comments), values aligned in attn's columns.

# torch.tensor([10., 20., 30.]).softmax(0) -> tensor([2.0611e-09, 4.5398e-05, 9.9995e-01])
printf '10 20 30\n' > "$T/logits"
run softmax "$T/logits" --format pretty; expect_code 0 "pretty softmax of [10, 20, 30]"
if [ "$OUT" = $'softmax (1x3):\n  2.0611e-09  4.5398e-05  9.9995e-01' ]; then pass; else fail "softmax([10,20,30]) pretty: $OUT"; fi
run softmax "$T/logits" --format pretty --digits 2
if [ "$OUT" = $'softmax (1x3):\n  2.06e-09  4.54e-05  1.00e+00' ]; then pass; else fail "--digits 2 in scientific: $OUT"; fi
# csv keeps its significant digits (0.99995458 to 4 is 1.000, which %g prints as 1)
run softmax "$T/logits" --format csv --digits 4
if [ "$OUT" = "2.061e-09,4.54e-05,1" ]; then pass; else fail "csv --digits 4: $OUT"; fi

# torch.manual_seed(0); torch.empty(1, 3).normal_(0, 1e30) -> [[1.5410e+30, -2.9343e+29, -2.1788e+30]]
run random --shape 1,3 --seed 0 --std 1e30 --format pretty
if [ "$OUT" = $'draw 0 (1x3):\n  1.5410e+30  -2.9343e+29  -2.1788e+30' ]; then pass; else fail "large values in scientific: $OUT"; fi
# torch.manual_seed(0); torch.randn(2, 3) -> [[1.5410, -0.2934, -2.1788], [0.5684, -1.0845, -1.3986]]
run random --shape 2,3 --seed 0 --format pretty --digits 4
if [ "$OUT" = $'draw 0 (2x3):\n  1.5410  -0.2934  -2.1788\n  0.5684  -1.0845  -1.3986' ]; then pass; else fail "random pretty --digits 4: $OUT"; fi
# every --help says what --digits means (help text is wrapped: compare with spaces squeezed)
for cmd in random softmax matmul attend concat; do
    help=$("$ATTN" "$cmd" --help | tr -s ' \n' '  ')
    case $help in
        *"pretty: digits after the decimal point (default 4"*"csv/tsv/json: significant digits (default 9; 0 prints 1, as printf's %g)"*) pass ;;
        *) fail "$cmd --help does not say what --digits means" ;;
    esac
done

# ---- wrapping: pretty tables in column blocks no wider than $COLUMNS; csv never wraps ----
COLUMNS=40 "$ATTN" random --shape 3,8 --seed 0 --format pretty > "$T/out" 2>"$T/err"; CODE=$?
expect_code 0 "random 3x8 at COLUMNS=40"
expect_out_has "  columns 0–3:" "COLUMNS=40: first block header"
expect_out_has "  columns 4–7:" "COLUMNS=40: second block header"
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/out")
if [ "$longest" -le 40 ]; then pass; else fail "COLUMNS=40: a line of $longest characters"; fi
# the blocks hold the same numbers as the unwrapped table, in the same order per row
COLUMNS=1000 "$ATTN" random --shape 3,8 --seed 0 --format pretty > "$T/wide" 2>/dev/null
if ! grep -q columns "$T/wide"; then pass; else fail "COLUMNS=1000: wrapped"; fi
wrapped_row0=$(awk '/columns/ { b++; n = 0; next } /^  / { n++; if (n == 1) printf "%s", $0 }' "$T/out" | tr -s ' ')
wide_row0=$(sed -n 2p "$T/wide" | tr -s ' ')
if [ "$wrapped_row0" = "$wide_row0" ]; then pass; else fail "wrapped row 0 '$wrapped_row0' vs '$wide_row0'"; fi
# (one matrix: three bare rows, no header and no trailing blank line)
COLUMNS=20 "$ATTN" random --shape 3,8 --seed 0 --format csv > "$T/out" 2>/dev/null
if [ "$(wc -l < "$T/out")" -eq 3 ] && ! grep -q columns "$T/out"; then pass; else fail "csv wrapped at COLUMNS=20"; fi

# ---- labels in csv: a header row and a first column, the numbers those of the plain output ----
x="$ROOT/data/examples/simple/x.txt"
printf 'These\nare\nrandom\nwords\nand\nembeddings\n' > "$T/labels"
run attend -x "$x" --show weights --format csv
cp "$T/out" "$T/plain"
run attend -x "$x" --show weights --labels "$T/labels" --format csv; expect_code 0 "attend --labels csv"
if [ "$(sed -n 1p "$T/out")" = ",These,are,random,words,and,embeddings" ]; then pass; else fail "csv header row: $(sed -n 1p "$T/out")"; fi
if [ "$(sed -n '2,$p' "$T/out" | cut -d, -f1 | tr '\n' ' ')" = "These are random words and embeddings " ]; then pass; else fail "csv first column"; fi
if [ "$(sed -n '2,$p' "$T/out" | cut -d, -f2-)" = "$(cat "$T/plain")" ]; then pass; else fail "labelled csv numbers differ from the plain csv"; fi
run attend -x "$x" --show weights --labels "$T/labels" --format tsv
if [ "$(sed -n 2p "$T/out" | cut -f1)" = "These" ]; then pass; else fail "tsv first column"; fi

# ---- labels in json: "labels" and "key_labels" after the matrices; one matrix reads back ----
run attend -x "$x" --show weights --labels "$T/labels" --format json; expect_code 0 "attend --labels json"
expect_out_has '"labels": ["These", "are", "random", "words", "and", "embeddings"]' "json labels"
expect_out_has '"key_labels": ["These", "are", "random", "words", "and", "embeddings"]' "json key_labels"
"$ATTN" softmax --format csv < "$T/out" > "$T/back" 2>"$T/err"
"$ATTN" softmax --format csv < "$T/plain" > "$T/back_plain" 2>/dev/null
if cmp -s "$T/back" "$T/back_plain"; then pass; else fail "labelled json does not read back as the plain csv: $(cat "$T/err")"; fi
printf '{"w": [[1, 2]], "other": [1]}' > "$T/other.json"
run softmax "$T/other.json"; expect_code 3 "json with another key"
expect_err_has "a second matrix starts here" "json with another key: message"
