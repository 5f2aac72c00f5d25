# attn example NAME --export DIR: the example's files land in DIR, and every command that
# `attn example NAME` prints runs as shown inside DIR, giving the values PyTorch gave (the
# files the example names in its "vs PyTorch" lines), not merely what attn printed before.
mkdir -p "$T/bin" && ln -sf "$ATTN" "$T/bin/attn"   # the commands say `attn`

# block NAME OUT: the numbers of item NAME in csv output OUT: its "# NAME ..." slices, or
# the whole output when it has no headers (a single item).
block() {
    if grep -q '^# ' "$2"; then
        awk -v want="$1" '/^# / { split($0, f, " "); on = (f[2] == want); next } on' "$2"
    else
        cat "$2"
    fi
}

examples=$("$ATTN" example | awk 'NR > 1 { print $1 }')
[ "$(wc -w <<<"$examples")" -ge 11 ] && pass || fail "example list: $examples"
for name in $examples; do
    dir="$T/exp/$name"
    run example "$name" --export "$dir"
    expect_code 0 "example $name --export"
    # every file of the example, byte for byte as in data/examples
    for f in "$ROOT/data/examples/$name"/*.txt; do
        cmp -s "$f" "$dir/$(basename "$f")" && pass || fail "$name: $(basename "$f") exported as in data/examples"
    done
    # the commands --export prints are those the example shows
    grep '^\$ ' "$T/out" >"$T/export_cmds"
    "$ATTN" example "$name" | grep '^\$ ' >"$T/show_cmds"
    cmp -s "$T/export_cmds" "$T/show_cmds" && pass || fail "$name: --export prints the commands the example shows"

    # pretty (as shown by default): each case's commands run inside DIR
    case_no=0
    while IFS= read -r -d '' cmds; do
        case_no=$((case_no + 1))
        (cd "$dir" && PATH="$T/bin:$PATH" bash -e -o pipefail -c "$cmds") >"$T/pretty.out" 2>"$T/pretty.err" \
            && [ -s "$T/pretty.out" ] && pass || fail "$name case $case_no (pretty): $cmds: $(cat "$T/pretty.err")"
    done < <(awk '/^== / { if (c != "") printf "%s%c", c, 0; c = ""; next }
                  /^\$ / { c = c substr($0, 3) "\n" }
                  END { if (c != "") printf "%s%c", c, 0 }' <("$ATTN" example "$name"))

    # csv (the example's own lines are "# " comments there): run each case's commands and compare
    # each result with the file PyTorch's values are in
    "$ATTN" example "$name" --format csv >"$T/show_csv"
    case_no=0
    while IFS=$'\t' read -r cmds checks; do
        case_no=$((case_no + 1))
        cmds=${cmds//$'\x01'/$'\n'}
        if ! (cd "$dir" && PATH="$T/bin:$PATH" bash -e -o pipefail -c "$cmds") >"$T/got.csv" 2>"$T/got.err"; then
            fail "$name case $case_no (csv): $cmds: $(cat "$T/got.err")"
            continue
        fi
        pass
        for check in $checks; do
            what=${check%%=*} file=${check#*=}
            tol=1e-5
            if [ "$what" = variance ]; then  # the record of attn variance: its two variances
                awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                         { print $c["unscaled_var"], $c["scaled_var"] }' "$T/got.csv" >"$T/got.block"
                tol=1e-4  # 512.0118: float32 spacing is 3e-5
            elif [ -f "$dir/$what.csv" ] && ! grep -q "^# $what " "$T/got.csv"; then
                cp "$dir/$what.csv" "$T/got.block"  # a generated input (attn random > v.csv)
            else
                block "$what" "$T/got.csv" >"$T/got.block"
            fi
            expect_close "$dir/$file" "$T/got.block" $tol "$name case $case_no: $what vs $file"
        done
    done < <(awk '/^# == / { if (c != "") print c "\t" k; c = ""; k = ""; next }
                  /^# \$ / { c = c (c == "" ? "" : "\001") substr($0, 5); next }
                  /^# .* vs PyTorch 1\.13 \(/ { f = $0; sub(/.* vs PyTorch 1\.13 \(/, "", f); sub(/\).*/, "", f); k = k " " $2 "=" f }
                  END { if (c != "") print c "\t" k }' "$T/show_csv")
    [ "$case_no" -ge 1 ] && pass || fail "$name: no case found in --format csv"
    # the example's own lines are comments in csv
    grep -E '^(== |\$ |The tutorial)| vs PyTorch ' "$T/show_csv" | grep -v '^# ' | grep -q . \
        && fail "$name --format csv: a line of text that is not a comment" || pass

    # json: one document; each case's commands (in "commands") print json whose results equal
    # PyTorch's files (named in "pytorch"), number for number
    "$ATTN" example "$name" --format json >"$T/show.json"
    ncases=$(jq '.cases | length' "$T/show.json") || ncases=0
    [ "$ncases" -ge 1 ] && pass || fail "$name --format json: not one JSON document with cases"
    for ((c = 0; c < ncases; c++)); do
        cmds=$(jq -r ".cases[$c].commands | join(\"\n\")" "$T/show.json")
        if ! (cd "$dir" && PATH="$T/bin:$PATH" bash -e -o pipefail -c "$cmds") >"$T/got.json" 2>"$T/got.err"; then
            fail "$name json case $c: $cmds: $(cat "$T/got.err")"
            continue
        fi
        while read -r what file ok; do
            [ "$ok" = true ] && pass || fail "$name json case $c: $what not ok in the example's own comparison"
            if [ "$what" = variance ]; then
                jq -r '.[0] | .unscaled_var, .scaled_var' "$T/got.json" >"$T/got.block"; tol=1e-4
            elif jq -e "has(\"$what\")" "$T/got.json" >/dev/null; then
                jq -r ".[\"$what\"] | flatten | .[]" "$T/got.json" >"$T/got.block"; tol=1e-5
            else
                cp "$dir/$what.csv" "$T/got.block"; tol=1e-5  # a generated input
            fi
            expect_close "$dir/$file" "$T/got.block" $tol "$name json case $c: $what vs $file"
        done < <(jq -r ".cases[$c].pytorch[] | \"\(.name) \(.file) \(.ok)\"" "$T/show.json")
    done
done

# csv output of the example itself: the values in csv, the commands saying --format csv
run example simple --format csv
expect_code 0 "example --format csv"
expect_out_has "$ attn attend -x x.txt --scale none --show scores,weights,context --format csv" "csv commands say --format csv"
expect_out_has "0.937099993,0.726500034" "csv values, 9 significant digits"
run example simple --format json --digits 3
expect_code 0 "example --format json"
expect_out_has '"weights": [' "json values"
expect_out_has "--format json --digits 3" "json commands carry --digits"
run example simple --format npy; expect_code 2 "example --format npy refused"
run example simple --format xml; expect_code 2 "example --format xml refused"
run example --export "$T/none"; expect_code 2 "--export without NAME"
run example simple --force; expect_code 2 "--force without --export"
run example simple --check --export "$T/none"; expect_code 2 "--check with --export"
[ ! -e "$T/none" ] && pass || fail "usage errors export nothing"
# pretty wraps to COLUMNS like attend's tables
COLUMNS=40 run example masking
expect_out_has "columns 0–" "example pretty output wraps in column blocks at COLUMNS=40"
w=$(grep '^  ' "$T/out" | LC_ALL=C.UTF-8 wc -L)  # table lines, in terminal columns
[ "$w" -le 40 ] && pass || fail "example masking at COLUMNS=40: table lines $w wide"

# existing files: identical ones are fine, different ones need --force, nothing half-written
d="$T/clobber"
run example trainable --export "$d"; expect_code 0 "first export"
run example trainable --export "$d"; expect_code 0 "second export: files identical"
expect_out_has "already there, identical" "second export says so"
echo "0 0" >"$d/x.txt"; rm "$d/wq.txt"
run example trainable --export "$d"
expect_code 1 "a differing file is not replaced without --force"
expect_err_has "x.txt exists and differs" "the message names the file"
[ "$(cat "$d/x.txt")" = "0 0" ] && [ ! -e "$d/wq.txt" ] && pass || fail "refused export wrote nothing"
tr 0-9 1-90 <"$ROOT/data/examples/trainable/x.txt" >"$d/x.txt"   # the same size, other digits
run example trainable --export "$d"
expect_code 1 "a file of the same size but other bytes is not replaced either"
: >"$d/x.txt"
run example trainable --export "$d"
expect_code 1 "nor an empty file"
run example trainable --export "$d" --force
expect_code 0 "--force replaces"
cmp -s "$d/x.txt" "$ROOT/data/examples/trainable/x.txt" && [ -e "$d/wq.txt" ] && pass || fail "--force wrote the files"
mkdir -p "$T/ro" && chmod 555 "$T/ro"
if [ "$(id -u)" != 0 ]; then
    run example simple --export "$T/ro/sub"; expect_code 1 "export into an unwritable place"
fi
chmod 755 "$T/ro"

# A failed command changes no file: standard output that cannot be written leaves no folder,
# nor the folders above it made for it, nor one named with a trailing slash.
if [ -w /dev/full ]; then
    for out in full_out full_out/sub/dir full_out/; do
        "$ATTN" example masking --export "$T/$out" >/dev/full 2>/dev/null; code=$?
        if [ "$code" -eq 1 ] && [ ! -e "$T/full_out" ]; then pass
        else fail "--export $out with stdout full: exit $code, left: $(find "$T/full_out" 2>&1 | head -3 | tr '\n' ' ')"; rm -rf "$T/full_out"; fi
    done
fi
