#!/usr/bin/env bash
# Renders the example SVGs to PNG with headless Chromium so a person can look at them.
# Usage: render.sh BUILD_DIR OUTPUT_DIR   (run by `make screenshots`; not part of `make test`)
set -euo pipefail
build=$1 out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

"$build/svg_examples" "$work"
"$build/attn" variance --dk 1,2,4,...,1024 --svg "$work/variance_sweep.svg" --format csv >/dev/null
"$build/attn" variance --svg "$work/variance_default.svg" --format csv >/dev/null

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "render.sh: chromium not found (make screenshots installs the Debian package)" >&2
    exit 1
fi
for svg in "$work"/*.svg; do
    name=$(basename "$svg" .svg)
    # The window is the SVG's own size (its width/height attributes).
    w=$(sed -nE '0,/<svg /{s/.*<svg [^>]*width="([0-9.]+)".*/\1/p}' "$svg" | head -n 1)
    h=$(sed -nE '0,/<svg /{s/.*<svg [^>]*height="([0-9.]+)".*/\1/p}' "$svg" | head -n 1)
    w=${w%.*} h=${h%.*}
    "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --hide-scrollbars --window-size="${w:-1000},${h:-600}" --screenshot="$out/$name.png" "file://$svg" \
        >/dev/null 2>&1
    echo "wrote $out/$name.png (${w}x${h})"
done
cp "$work/masking_heatmap.txt" "$out/masking_heatmap.txt"
# The README's head view: the tutorial's sentence pair through the tiny random-weight BERT
# (data/models/tiny/bert_uncased: bert-base-uncased's vocabulary, random weights), layer 1.
"$build/attn" model data/models/tiny/bert_uncased --text "time flies like an arrow" \
    --text-pair "fruit flies like a banana" --layer 1 --html "$work/bert_pair.html" --show tokens >/dev/null
"$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --hide-scrollbars --window-size=660,490 --screenshot="$out/bert_pair_random_weights.png" \
    "file://$work/bert_pair.html" >/dev/null 2>&1
echo "wrote $out/bert_pair_random_weights.png (660x490)"
