#!/usr/bin/env bash
# The HTML view in a real browser: headless Chromium opens each page with "#selftest", the
# page writes every line it drew into the DOM, and the lines (query, key, opacity) must equal
# the weights given: those attn printed as csv, and those numpy saved (data/models). Also
# saves a screenshot for the README. Last line: "N passed, N failed".
# usage: tests/browser/run.sh BUILD SCREENSHOT_DIR
set -u
build=$1 shots=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL [browser] $*"; }

chrome() {  # chrome ARGS...: a fresh profile each time, nothing fetched or synced
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" --virtual-time-budget=5000 "$@" 2>>"$T/chrome.log"
}

# selftest PAGE OUT: the lines the page drew, "SLICE QUERY KEY OPACITY", and "cells SLICE N"
selftest() {
    chrome --dump-dom "file://$1#selftest" >"$T/dom.html"
    sed -n '/<pre id="selftest">/,/<\/pre>/p' "$T/dom.html" | sed -e 's/<pre id="selftest">//' -e 's/<\/pre>//' \
        | grep -v '^$' >"$2"
}

# same_lines EXPECTED ACTUAL DESCRIPTION: the same (slice, query, key) set, weights within 1e-7
same_lines() {
    local msg
    msg=$(awk 'NR == FNR { if ($1 != "cells") e[$1" "$2" "$3] = $4; next }
               $1 == "cells" || $1 == "focus" { next }
               { n++; k = $1" "$2" "$3
                 if (!(k in e)) { print "line " k " was not expected"; exit }
                 d = e[k] - $4; if (d < 0) d = -d
                 if (d > 1e-7) { print "line " k ": opacity " $4 ", weight " e[k]; exit }
                 delete e[k] }
               END { for (k in e) { print "no line for " k " (weight " e[k] ")"; exit }
                     if (n == 0) print "no lines drawn" }' "$1" "$2")
    if [ -z "$msg" ]; then ok; else bad "$3: $msg"; fi
}

# 1. attn attend --html with a causal mask: one line per allowed pair, opacity = the weight
#    attn prints; masked pairs draw nothing; one matrix cell per pair.
ex="$ROOT/data/examples/masking"
"$build/attn" attend -x "$ex/x.txt" --labels "$ex/labels.txt" --causal --html "$T/causal.html" \
    --show weights --format csv >"$T/weights.csv" && ok || bad "attend --html failed"
# labelled csv: a header row of key labels (starting with ','), then a label before each row
awk -F, 'BEGIN { r = 0 } /^,/ { next } { for (k = 2; k <= NF; k++) if (k - 1 <= r + 1) print 0, r, k - 2, $k; r++ }' "$T/weights.csv" >"$T/expected"
selftest "$T/causal.html" "$T/drawn"
same_lines "$T/expected" "$T/drawn" "causal attend: lines equal the csv weights"
grep -qx 'cells 0 64' "$T/drawn" && ok || bad "causal attend: 64 matrix cells expected"
# hovering query q shows its q+1 causal lines and nothing else (a stray line would count 1000)
for q in 0 1 2 3 4 5 6 7; do
    grep -qx "focus $q $((q + 1))" "$T/drawn" && ok || bad "hover on query $q: $(grep "^focus $q " "$T/drawn")"
done
grep -q '<option value="0">weights</option>' "$T/dom.html" && ok || bad "head selector lists the matrix"
grep -qF 'shape (8, 8) · scale 1/√4 = 0.5' "$T/dom.html" && ok || bad "shape and scale shown"
grep -qF 'masking: causal (top-left)' "$T/dom.html" && ok || bad "masking shown"
chrome --screenshot="$T/causal.png" --window-size=1100,560 "file://$T/causal.html" >/dev/null
if [ -s "$T/causal.png" ]; then ok; mkdir -p "$shots" && cp "$T/causal.png" "$shots/html_view.png"; else bad "no screenshot"; fi

# 2. (B, H, Tq, Tk) = (2, 3, 4, 5) weights from numpy: every head's lines, through the selector.
"$build/html_example" "$ROOT/data/models/weights_b2h3.npy" "$T/heads.html" && ok || bad "html_example failed"
selftest "$T/heads.html" "$T/drawn"
same_lines "$ROOT/data/models/weights_b2h3.txt" "$T/drawn" "(2,3,4,5) weights: lines equal numpy's values"
[ "$(grep -c '^cells [0-5] 20$' "$T/drawn")" -eq 6 ] && ok || bad "(2,3,4,5): 20 matrix cells in each of 6 heads"
grep -qF '<option value="5">batch 1, head 2</option>' "$T/dom.html" && ok || bad "selector names batch and head"

# 3. attn attend with 4 heads (grouped-query, 2 K/V heads), causal: each head's lines equal
#    the csv blocks "# weights [h] 8x8" attn prints for the same run.
G="$ROOT/data/examples/grouped-query"
"$build/attn" attend -x "$G/x.txt" --wq "$G/wq.txt" --wk "$G/wk.txt" --wv "$G/wv.txt" --bq "$G/bq.txt" \
    --bk "$G/bk.txt" --bv "$G/bv.txt" --heads 4 --kv-heads 2 --causal --labels "$G/labels.txt" \
    --show weights --format csv --html "$T/gq.html" >"$T/gq.csv" && ok || bad "multi-head attend --html failed"
awk -F, '/^# weights \[/ { h = $0; sub(/.*\[/, "", h); sub(/\].*/, "", h); r = 0; next }
         /^,/ { next }
         NF > 1 { for (k = 2; k <= NF; k++) if (k - 1 <= r + 1) print h, r, k - 2, $k; r++ }' "$T/gq.csv" >"$T/expected"
[ "$(wc -l <"$T/expected")" -eq $((4 * 36)) ] && ok || bad "multi-head: 4 heads x 36 causal pairs expected from the csv"
selftest "$T/gq.html" "$T/drawn"
same_lines "$T/expected" "$T/drawn" "multi-head attend: every head's lines equal the csv weights"
grep -qF '<option value="3">weights [3]</option>' "$T/dom.html" && ok || bad "multi-head: selector lists the heads"

# 4. Self-contained: nothing in the page refers to another resource.
if grep -qiE '(src|href)=|url\(|@import|fetch\(|XMLHttpRequest' "$T/causal.html" "$T/heads.html"; then
    bad "the page refers to an external resource"
else ok; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
