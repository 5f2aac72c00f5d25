# Everything attn writes reads back into attn: every --show item of attend and the output of
# softmax, matmul, concat, random and variance, in csv, tsv, json and npz, with and without
# --labels, alone and selected by name from a file holding several (FILE.csv:NAME,
# FILE.json:NAME, FILE.npz:NAME; on standard input '-' and -:NAME). The reference is each
# result's own npy output; `attn concat FILE` (one input: the tensor as read) turns what was
# read back into npy, which must be the same bytes (9 significant digits round-trip float32 exactly). Excepted, and checked as such:
# pretty (for people: 4 decimals, read back to that precision when unlabelled and not wrapped),
# and json of a result holding -inf or NaN (json writes them as null). numpy.load reads the npz
# archives (skipped only when no python3 with numpy is found).

rb=$T/rb
mkdir -p "$rb"
"$ATTN" random --seed 3 --shape 2,5,8 --format npy -o "$rb/x.npy"
"$ATTN" random --seed 4 --shape 24,8 --format npy -o "$rb/in_proj.npy"
"$ATTN" random --seed 5 --shape 8,8 --format npy -o "$rb/out_proj.npy"
# labels that exercise every quoting rule of csv and tsv (a label that opens like a comment
# line, '# The', is quoted in csv and escaped in tsv), and one that is a number
printf '# The\nsay "hi"\na,b\n##ing\n7\n' > "$rb/labels"
attend_args=(attend -x "$rb/x.npy" --heads 2 --in-proj "$rb/in_proj.npy" --out-proj "$rb/out_proj.npy" --causal)
attend() { "$ATTN" "${attend_args[@]}" "$@"; }

# same_as_npy REF FILE DESCRIPTION [STDIN]: FILE (a path attn reads; STDIN on standard input)
# read back is REF's tensor, bit for bit.
same_as_npy() {
    rm -f "$rb/back.npy"
    if ! "$ATTN" concat "$2" --format npy -o "$rb/back.npy" 2>"$T/err" <"${4:-/dev/null}"; then
        fail "$3: not read back: $(cat "$T/err")"
    elif cmp -s "$1" "$rb/back.npy"; then pass
    else fail "$3: read back differs from the npy output"; fi
}

items="queries keys values scores scaled weights weights-mean context output"
all=${items// /,}
for lab in none labels; do
    label_args=()
    [ "$lab" = labels ] && label_args=(--labels "$rb/labels")
    for item in $items; do
        attend --show "$item" --format npy -o "$rb/$item.npy"
        for fmt in csv tsv json npz; do
            # json writes the masked -inf of scaled as null: excepted below
            [ "$fmt/$item" = json/scaled ] && continue
            attend "${label_args[@]}" --show "$item" --format "$fmt" > "$rb/one.$fmt"
            same_as_npy "$rb/$item.npy" "$rb/one.$fmt" "$item ($fmt, labels: $lab)"
            same_as_npy "$rb/$item.npy" - "$item ($fmt on stdin, labels: $lab)" "$rb/one.$fmt"
        done
    done
    # several results in one file, each selected by name (context and output shown with the
    # weights come through them, not from the fused kernel: their reference is this run's)
    attend --show "$all" --format npy -o "$rb/all"
    for fmt in csv tsv json npz; do
        attend "${label_args[@]}" --show "$all" --format "$fmt" -o "$rb/all.$fmt"
        for item in $items; do
            [ "$fmt/$item" = json/scaled ] && continue
            same_as_npy "$rb/all/$item.npy" "$rb/all.$fmt:$item" "$item from all.$fmt:$item (labels: $lab)"
            same_as_npy "$rb/all/$item.npy" "-:$item" "$item from -:$item, all.$fmt on stdin (labels: $lab)" "$rb/all.$fmt"
        done
    done
done

# json: a result holding -inf says why it does not read back; without a mask, scaled does
run concat "$rb/all.json:scaled"; expect_code 3 "json scaled with -inf (null)"
expect_err_has "found 'null', json's stand-in for NaN or infinity (read such values from csv, tsv or npy)" "null message"
"$ATTN" attend -x "$rb/x.npy" --heads 2 --show scaled --format npy -o "$rb/scaled_nomask.npy"
"$ATTN" attend -x "$rb/x.npy" --heads 2 --labels "$rb/labels" --show scaled,weights --format json -o "$rb/nomask.json"
same_as_npy "$rb/scaled_nomask.npy" "$rb/nomask.json:scaled" "scaled without a mask (json)"

# pretty, unlabelled: read back to its 4 decimals (fixed, or 4 decimals of scientific notation)
for item in $items; do
    COLUMNS=10000 attend --show "$item" --format pretty > "$rb/one.txt"
    "$ATTN" concat "$rb/one.txt" --format npy -o "$rb/back.npy" 2>"$T/err" || { fail "pretty $item: $(cat "$T/err")"; continue; }
    if "$(dirname "$ATTN")/allclose" "$rb/back.npy" "$rb/$item.npy" --atol 5e-5 --rtol 5e-5 2>"$T/err"; then pass
    else fail "pretty $item read back: $(cat "$T/err")"; fi
done

# the pipeline the README teaches, labelled: the scaled scores into softmax give the weights
ex=$ROOT/data/examples/masking
"$ATTN" attend -x "$ex/x.txt" --causal --show weights --format npy -o "$rb/w2.npy"
"$ATTN" attend -x "$ex/x.txt" --causal --labels "$ex/labels.txt" --show scaled --format csv |
    "$ATTN" softmax - --format npy > "$rb/sm.npy" 2>"$T/err"
if [ -s "$rb/sm.npy" ] && "$(dirname "$ATTN")/allclose" "$rb/sm.npy" "$rb/w2.npy" 2>>"$T/err"; then pass
else fail "labelled scaled | softmax -: $(cat "$T/err")"; fi

# variance: its csv/tsv table reads back as the numbers under its header row (as float32:
# the statistics are printed from doubles)
for fmt in csv tsv; do
    attend --labels "$rb/labels" --show variance --format "$fmt" > "$rb/var.$fmt"
    sed '1,2d' "$rb/var.$fmt" > "$rb/var_expect"
    run concat "$rb/var.$fmt" --format csv; expect_code 0 "variance $fmt read back"
    expect_close "$rb/var_expect" "$T/out" 1e-4 "variance $fmt: the numbers"
    "$ATTN" variance --dk 4,8 --format "$fmt" | tee "$rb/sweep.$fmt" | sed '1d' > "$rb/var_expect"
    run concat "$rb/sweep.$fmt" --format csv; expect_code 0 "attn variance $fmt read back"
    expect_close "$rb/var_expect" "$T/out" 1e-4 "attn variance $fmt: the numbers"
done

# json's records (variance, kv-error; several: a list of them) read back as their csv does: a
# row each, by name from a file or standard input; one record (a 2-D problem) as a column
for item in variance kv-error; do
    attend --kv-dtype q8_0 --show "$item",weights --format csv > "$rb/rec.csv"
    attend --kv-dtype q8_0 --show "$item",weights --format json > "$rb/rec.json"
    "$ATTN" concat "$rb/rec.csv:$item" --format csv > "$rb/rec_expect"
    run concat "$rb/rec.json:$item" --format csv; expect_code 0 "$item json read back"
    expect_close "$rb/rec_expect" "$T/out" 0 "$item json: the numbers of its csv"
    run_in "$rb/rec.json" concat "-:$item" --format csv; expect_code 0 "$item json on standard input"
    expect_close "$rb/rec_expect" "$T/out" 0 "$item json on standard input: the numbers"
done
"$ATTN" random --seed 8 --shape 5,4 --format npy -o "$rb/q1.npy"
for fmt in json csv; do
    "$ATTN" attend -q "$rb/q1.npy" -k "$rb/q1.npy" -v "$rb/q1.npy" --show variance,context --format $fmt -o "$rb/one.$fmt"
done
"$ATTN" concat "$rb/one.csv:variance" --format npy -o "$rb/one_expect.npy"
same_as_npy "$rb/one_expect.npy" "$rb/one.json:variance" "one record in json: a column, as its csv"
# a json of records alone reads back bare, as its csv does: one result's ({"variance": {...}}),
# and attn variance's list of records, nested ones ("scaled": {...}) in the csv's column order
for item in variance kv-error; do
    attend --kv-dtype q8_0 --show "$item" --format csv > "$rb/alone.csv"
    attend --kv-dtype q8_0 --show "$item" --format json > "$rb/alone.json"
    "$ATTN" concat "$rb/alone.csv" --format csv > "$rb/rec_expect"
    run concat "$rb/alone.json" --format csv; expect_code 0 "$item json alone read back bare"
    expect_close "$rb/rec_expect" "$T/out" 0 "$item json alone, bare: the numbers of its csv"
done
"$ATTN" variance --dk 4,8 --format csv -o "$rb/sweep_again.csv"
"$ATTN" variance --dk 4,8 --format json -o "$rb/sweep.json"
"$ATTN" concat "$rb/sweep_again.csv" --format csv > "$rb/rec_expect"
run concat "$rb/sweep.json" --format csv; expect_code 0 "attn variance json read back"
expect_close "$rb/rec_expect" "$T/out" 0 "attn variance json: the numbers of its csv, nested records in place"
printf '[{"a": 1, "b": {"c": 2}}, {"a": 3, "b": {"d": 4}}]' > "$rb/other_fields.json"
run concat "$rb/other_fields.json"; expect_code 3 "records of other nested fields"
expect_err_has "records with other fields than the first's" "records of other nested fields named"
printf 'X"a": {"b": 1, "c": 2}}' > "$rb/not_json.txt"  # no '{': not records, not "one result without a name"
run softmax "$rb/not_json.txt"; expect_code 3 "text that is not json"
expect_err_has "expected a number, found 'X\"a\":'" "text that is not json: read as numbers"
printf '{"variance": {"d_k": 2, "scaled": {"entropy_mean": null}}}' > "$rb/nested_null.json"
run concat "$rb/nested_null.json"; expect_code 3 "a nested record's null field"
expect_err_has '"scaled.entropy_mean" is null' "a nested record's field named outer.inner"
printf '{"variance": {"d_k": 2, "scale": null}}' > "$rb/null.json"
run concat "$rb/null.json:variance"; expect_code 3 "a record's null field"
expect_err_has '"scale" is null' "a record's null field named"

# a vector (lse of a 2-D problem) under a heading says so, "(N,)" as NumPy writes a shape,
# and reads back as a vector, not a 1xN matrix; "(N,)" over more than one row is an error
"$ATTN" random --seed 7 --shape 5,4 --format npy -o "$rb/q2.npy"
"$ATTN" attend -q "$rb/q2.npy" -k "$rb/q2.npy" -v "$rb/q2.npy" --show lse,context --format npy -o "$rb/vec"
for fmt in csv tsv; do
    "$ATTN" attend -q "$rb/q2.npy" -k "$rb/q2.npy" -v "$rb/q2.npy" --show lse,context --format $fmt -o "$rb/vec.$fmt"
    same_as_npy "$rb/vec/lse.npy" "$rb/vec.$fmt:lse" "a vector from vec.$fmt:lse"
done
COLUMNS=10000 "$ATTN" attend -q "$rb/q2.npy" -k "$rb/q2.npy" -v "$rb/q2.npy" --show lse --format pretty -o "$rb/vec.txt"
if head -1 "$rb/vec.txt" | grep -qx 'lse (5,):' && "$ATTN" concat "$rb/vec.txt" --format json | grep -q '"concat": \[[^[]'
then pass; else fail "pretty vector: $(head -1 "$rb/vec.txt")"; fi
printf '# lse (2,)\n1,2\n3,4\n' > "$rb/vec_bad.csv"
run concat "$rb/vec_bad.csv"; expect_code 3 "(N,) over two rows"
expect_err_has "the header says (2,) but the matrix is 2x2 (a vector is one row)" "(N,) message"

# softmax, matmul, concat: their one result in every format
printf '0.5,-1,2\n3,0.25,-0.125\n' > "$rb/m"
"$ATTN" softmax "$rb/m" --format npy -o "$rb/softmax.npy"
"$ATTN" matmul "$rb/m" "$rb/m" --transpose-b --format npy -o "$rb/product.npy"
"$ATTN" concat "$rb/x.npy" "$rb/x.npy" --axis 1 --format npy -o "$rb/concat.npy"
for fmt in csv tsv json npz; do
    "$ATTN" softmax "$rb/m" --format "$fmt" -o "$rb/s.$fmt"
    same_as_npy "$rb/softmax.npy" "$rb/s.$fmt" "softmax ($fmt)"
    "$ATTN" matmul "$rb/m" "$rb/m" --transpose-b --format "$fmt" -o "$rb/p.$fmt"
    same_as_npy "$rb/product.npy" "$rb/p.$fmt" "matmul ($fmt)"
    "$ATTN" concat "$rb/x.npy" "$rb/x.npy" --axis 1 --format "$fmt" -o "$rb/c.$fmt"
    same_as_npy "$rb/concat.npy" "$rb/c.$fmt" "concat ($fmt)"
done
same_as_npy "$rb/softmax.npy" "$rb/s.npz:softmax" "softmax from s.npz:softmax"

# random: several draws, one selected by name; json's draws as one tensor; npz's drawN
mkdir -p "$rb/draws"
"$ATTN" random --seed 9 --shape 2,3,4 --count 3 --format npy -o "$rb/draws"
for fmt in csv tsv npz; do
    "$ATTN" random --seed 9 --shape 2,3,4 --count 3 --format "$fmt" -o "$rb/r.$fmt"
done
for d in 0 1 2; do
    same_as_npy "$rb/draws/draw$d.npy" "$rb/r.csv:draw $d" "random r.csv:'draw $d'"
    same_as_npy "$rb/draws/draw$d.npy" "$rb/r.tsv:draw $d" "random r.tsv:'draw $d'"
    same_as_npy "$rb/draws/draw$d.npy" "$rb/r.npz:draw$d" "random r.npz:draw$d"
done
"$ATTN" random --seed 9 --shape 2,3,4 --count 3 --format json -o "$rb/r.json"
"$ATTN" concat "$rb/draws/draw0.npy" "$rb/draws/draw1.npy" "$rb/draws/draw2.npy" --format npy -o "$rb/stacked.npy"
"$ATTN" concat "$rb/r.json:draws" --format csv > "$rb/json_draws.csv" 2>"$T/err"
"$ATTN" concat "$rb/stacked.npy" --format csv > "$rb/stacked.csv"
# concat joins along axis 0 (6,3,4); json's draws are (3,2,3,4): the same numbers in the same order
if [ -s "$rb/json_draws.csv" ] && diff -q <(grep -v '^#' "$rb/json_draws.csv" | grep .) <(grep -v '^#' "$rb/stacked.csv" | grep .) >/dev/null
then pass; else fail "random json draws read back: $(cat "$T/err")"; fi

# draws of several shapes do not stack: json holds each as "draw N", as csv names them
"$ATTN" random --seed 5 --shape 3,4 --shape 5 --format npy -o "$rb/ragged"
"$ATTN" random --seed 5 --shape 3,4 --shape 5 --format json -o "$rb/ragged.json"
same_as_npy "$rb/ragged/draw0.npy" "$rb/ragged.json:draw 0" "random json of two shapes: draw 0"
same_as_npy "$rb/ragged/draw1.npy" "$rb/ragged.json:draw 1" "random json of two shapes: draw 1"
# float32's largest value at any --digits reads back: at 4 digits it rounded up to 3.403e+38,
# which is beyond float32 (inf); it is cut toward zero at that precision now (3.402e+38)
printf '3.4028235e38 -3.4028235e38 1.5\n' > "$rb/fmax.txt"
for digits in 1 3 4 5 8 9; do
    for fmt in csv pretty json; do
        "$ATTN" concat "$rb/fmax.txt" --format $fmt --digits $digits -o "$rb/fmax_$digits.$fmt"
        run concat "$rb/fmax_$digits.$fmt" --format csv
        expect_code 0 "FLT_MAX printed in $fmt at --digits $digits reads back"
    done
done
expect_out_has "3.40282347e+38,-3.40282347e+38,1.5" "FLT_MAX at 9 digits: the same value"
if grep -q '3.402e+38' "$rb/fmax_4.csv"; then pass; else fail "FLT_MAX at 4 digits: $(cat "$rb/fmax_4.csv")"; fi
# either spelling selects a draw: the files' and members' draw1 in text, the text's "draw 1" in an npz
"$ATTN" random --seed 5 --shape 3,4 --shape 5 --format npz -o "$rb/ragged.npz"
"$ATTN" random --seed 5 --shape 3,4 --shape 5 --format csv -o "$rb/ragged.csv"
same_as_npy "$rb/ragged/draw1.npy" "$rb/ragged.json:draw1" "random json: draw1 selects \"draw 1\""
same_as_npy "$rb/ragged/draw0.npy" "$rb/ragged.csv:draw0" "random csv: draw0 selects # draw 0"
same_as_npy "$rb/ragged/draw1.npy" "$rb/ragged.npz:draw 1" "random npz: 'draw 1' selects draw1"
run concat "$rb/ragged.csv:draw01"; expect_code 3 "draw01 is no draw's name"
# several draws to -o x.npy: the usage error of every command, and no folder named x.npy
run random --seed 1 --shape 3 --count 2 -o "$rb/two.npy"; expect_code 2 "random: two draws to two.npy"
expect_err_has "2 results do not fit one .npy file: write them to an archive ($rb/two.npz)" "random two.npy message"
if [ ! -e "$rb/two.npy" ]; then pass; else fail "random left $rb/two.npy"; fi

# npz archives as numpy.load sees them: names, dtypes, shapes and values of the npy files
py=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
if [ -n "$py" ]; then
    if "$py" - "$rb" "$items" <<'EOF' 2>"$T/err"; then pass; else fail "numpy.load: $(tail -n 3 "$T/err")"; fi
import sys, numpy as np
rb, items = sys.argv[1], sys.argv[2].split()
z = np.load(rb + "/all.npz")
assert z.files == items, z.files
for name in items:
    ref = np.load(rb + "/all/" + name + ".npy")
    assert z[name].dtype == np.float32 and np.array_equal(z[name], ref, equal_nan=True), name
r = np.load(rb + "/r.npz")
assert r.files == ["draw0", "draw1", "draw2"], r.files
assert all(np.array_equal(r["draw%d" % d], np.load(rb + "/draws/draw%d.npy" % d)) for d in range(3))
EOF
fi

# -o NAME.npz chooses npz; several results to x.npy are a usage error naming both remedies
attend --show weights,context -o "$rb/wc.npz"
same_as_npy "$rb/all/context.npy" "$rb/wc.npz:context" "-o wc.npz holds context"
mkdir -p "$rb/empty" && cd "$rb/empty" || exit 1
run "${attend_args[@]}" --show weights,context -o both.npy; expect_code 2 "several results to both.npy"
expect_err_has "attn: -o both.npy: 2 results do not fit one .npy file: write them to an archive (both.npz) or a folder (both/, one NAME.npy each)" "both.npy message"
if [ -z "$(ls -A)" ]; then pass; else fail "both.npy left: $(ls -A)"; fi
# npz of a record is refused before anything is written; an existing archive is kept
cp "$rb/wc.npz" kept.npz
run "${attend_args[@]}" --show weights,variance -o kept.npz; expect_code 2 "npz of variance"
expect_err_has "'variance' is a record, not a matrix: npz cannot hold it" "npz of a record"
if cmp -s kept.npz "$rb/wc.npz" && [ "$(ls -A)" = kept.npz ]; then pass; else fail "kept.npz changed or a file was left"; fi
cd "$ROOT" || exit 1

# a name that is not there: the names that are
run concat "$rb/all.csv:weight"; expect_code 3 "missing name in csv"
expect_err_has "all.csv: no result 'weight' (it holds: queries, keys, values, scores, scaled, weights, weights-mean, context, output)" "csv names"
run concat "$rb/all.json:weight"; expect_code 3 "missing name in json"
expect_err_has "all.json: no result 'weight' (it holds: queries, keys" "json names"
# json names are decoded as JSON: "\u0061" is a (json_quote writes controls in names so)
printf '{"\\u0061": [[1, 2]], "b": [[3]]}' > "$rb/escaped.json"
run concat "$rb/escaped.json:a" --format csv; expect_code 0 "json name with a \\u escape"
expect_out_has "1,2" "json name with a \\u escape: its values"
# a member whose name is not valid JSON ("a\x") leaves the others readable by name
printf '{"a\\x": [[1]], "b": [[2]]}' > "$rb/odd_key.json"
run concat "$rb/odd_key.json:b" --format csv; expect_code 0 "json with an odd key: another member"
expect_out_has "2" "json with an odd key: its values"
# a name with a quote in it (concat --name) reads back whole
"$ATTN" concat "$rb/m" --format npy -o "$rb/m.npy"
"$ATTN" concat "$rb/m" --name 'x"y' --format json -o "$rb/quote_name.json"
same_as_npy "$rb/m.npy" "$rb/quote_name.json" "json of a name holding a quote"
# a file whose name holds ':' is read as that file
cp "$rb/s.csv" "$rb/odd.csv:softmax"
same_as_npy "$rb/softmax.npy" "$rb/odd.csv:softmax" "an existing file named odd.csv:softmax"
# a file of several results read whole: the message says how to name one
run concat "$rb/all.json"; expect_code 3 "json of several results"
expect_err_has "a second matrix starts here; attn reads one matrix per input; name one, as $rb/all.json:queries" "json hint"
run concat "$rb/all.tsv"; expect_code 3 "tsv of several results"
expect_err_has "a second matrix starts here; attn reads one matrix per input; name one, as $rb/all.tsv:queries" "tsv hint"

# Labels that read as numbers are marked so that the file still reads as labelled: csv quotes
# them, tsv escapes a character; never as \n, \t or \r, which tsv's escapes give a meaning of
# their own ("nan" is n\an, not \nan: a line break and "an").
"$ATTN" random --seed 6 --shape 3,4 --format npy -o "$rb/x3.npy"
printf 'nan\n17\nword\n' > "$rb/numeric_labels"
run attend -x "$rb/x3.npy" --labels "$rb/numeric_labels" --show weights --format tsv
expect_code 0 "tsv with labels nan and 17"
if head -2 "$T/out" | grep -qP '^\tn\\an\t\\17\tword$'; then pass; else fail "tsv labels nan/17: $(head -2 "$T/out" | cat -A)"; fi
run attend -x "$rb/x3.npy" --labels "$rb/numeric_labels" --show weights --format csv
if head -2 "$T/out" | grep -q '^,"nan","17",word$'; then pass; else fail "csv labels nan/17: $(head -2 "$T/out")"; fi
for f in csv tsv; do
    "$ATTN" attend -x "$rb/x3.npy" --labels "$rb/numeric_labels" --show weights --format $f -o "$rb/nl.$f" 2>/dev/null </dev/null
    run softmax "$rb/nl.$f" --format csv
    expect_code 0 "labels nan/17 in $f read back"
done

# Labels that begin as numbers ("2nd", "-3x") are marked the same way, and read back even where
# no other label shows the file is labelled (rows labelled alone: the context's columns are not).
printf '2nd\n-3x\n.5e\n' > "$rb/prefix_labels"
run attend -x "$rb/x3.npy" --labels "$rb/prefix_labels" --show context --format csv
if head -1 "$T/out" | grep -q '^"2nd",'; then pass; else fail "csv label 2nd: $(head -1 "$T/out")"; fi
for f in csv tsv; do
    "$ATTN" attend -x "$rb/x3.npy" --labels "$rb/prefix_labels" --show context --format $f -o "$rb/pl.$f" 2>/dev/null </dev/null
    "$ATTN" attend -x "$rb/x3.npy" --show context --format npy -o "$rb/pl.npy" 2>/dev/null </dev/null
    same_as_npy "$rb/pl.npy" "$rb/pl.$f" "labels 2nd/-3x/.5e in $f read back"
done
# A plain file is never read as labelled on the strength of a mistyped number: the first column
# of "4,5,6" over "abc,1,2" was dropped as labels, as was that of a lone "0x10,2,3" (from an audit).
printf '4,5,6\nabc,1,2\n7,8,9\n' > "$rb/typo.csv"
run softmax "$rb/typo.csv"
expect_code 3 "a word in the first column of a plain file"
expect_err_has "typo.csv:2:1: expected a number, found 'abc'" "the word named where it is"
for line in '0x10,2,3' '1.2.3,4,5' 'x,1,2\n3,4,5'; do
    printf "$line\n" > "$rb/typo.csv"
    run softmax "$rb/typo.csv"
    expect_code 3 "a plain file starting $line"
done
# Without a header row an unmarked number is no row label: a mistake. Under a header whose
# corner is empty it is one (pandas' to_csv writes its integer index so; it was refused for a
# while today, from an audit).
printf 'x,1,2\n5,3,4\n' > "$rb/typo.csv"
run softmax "$rb/typo.csv"
expect_code 3 "an unmarked number as a row label without a header"
printf ',a,b\n0,1,2\n1,3,4\n' > "$rb/pandas.csv"
printf '1 2\n3 4\n' > "$rb/pandas.txt"
"$ATTN" concat "$rb/pandas.txt" --format npy -o "$rb/pandas.npy"
same_as_npy "$rb/pandas.npy" "$rb/pandas.csv" "pandas' to_csv with its integer index"

# A lone vector in csv or tsv prints under a "# NAME (n,)" heading, so that it reads back as a
# vector (bare, it read back as (1, n), and a matmul of it against a matrix no longer fit; from an audit).
"$ATTN" random --seed 3 --shape 17 --format npy -o "$rb/v17.npy"
"$ATTN" softmax "$rb/v17.npy" --format npy -o "$rb/sv17.npy"
for f in csv tsv; do
    "$ATTN" softmax "$rb/v17.npy" --format $f -o "$rb/sv17.$f"
    same_as_npy "$rb/sv17.npy" "$rb/sv17.$f" "a lone vector in $f read back as (17,)"
    "$ATTN" softmax "$rb/v17.npy" --format $f | "$ATTN" concat - --format npy -o "$rb/piped.npy"
    if cmp -s "$rb/piped.npy" "$rb/sv17.npy"; then pass; else fail "a lone vector in $f piped back: not (17,)"; fi
done

# json writes -0 as -0.0: a JSON reader takes "-0" for the integer 0 (Python's json.load), and
# the sign was lost on the way into NumPy.
printf -- '-0 1\n2 -0\n' > "$rb/negzero.txt"
run concat "$rb/negzero.txt" --format json
if grep -qF -- '[-0.0, 1]' "$T/out" && grep -qF -- '[2, -0.0]' "$T/out"; then pass; else fail "json of -0: $OUT"; fi

# FILE:NAME selects a result of any text file, whatever its extension: text is recognised by content.
"$ATTN" random --shape 2,3 --seed 1 --count 2 --format csv >"$T/draws.txt"
"$ATTN" random --shape 2,3 --seed 1 --count 2 --format csv >"$T/draws.csv"
run concat "$T/draws.txt:draw 1"
expect_code 0 "draws.txt:draw 1"
if [ "$OUT" = "$("$ATTN" concat "$T/draws.csv:draw 1")" ] && [ -n "$OUT" ]; then pass; else fail "draws.txt:draw 1 is not draws.csv:draw 1"; fi

# pretty output of several results: FILE:NAME selects one (its 4 decimals), as for csv.
x=$ROOT/data/examples/simple/x.txt
"$ATTN" attend -x "$x" --show weights,context --format pretty >"$T/wc.pretty"
"$ATTN" attend -x "$x" --show context --format pretty --digits 4 >"$T/c.pretty"
run softmax "$T/wc.pretty:context"
expect_code 0 "wc.pretty:context"
if [ "$OUT" = "$("$ATTN" softmax "$T/c.pretty")" ] && [ -n "$OUT" ]; then pass; else fail "wc.pretty:context is not the context alone: $OUT"; fi
"$ATTN" random --shape 2,3 --shape 3 --seed 5 --format pretty >"$T/two.pretty"
run concat "$T/two.pretty:draw 1" --format csv
expect_code 0 "two.pretty:draw 1"
expect_out_has "-1.40170002,-0.762600005,0.631200016" "two.pretty:draw 1 (torch.randn's 4 decimals)"
"$ATTN" attend -x "$x" --show weights,variance --format pretty >"$T/wv.pretty"
run softmax "$T/wv.pretty:weights"
expect_code 0 "wv.pretty:weights (a record after it ends it)"
run concat "$T/two.pretty:draw 2"
expect_code 3 "two.pretty:draw 2"
expect_err_has "no result 'draw 2' (it holds: draw 0, draw 1)" "pretty names listed"

# -o DIR/ (made when missing) or an existing folder: one NAME.npy a result, npy without --format.
rm -rf "$T/fold1" "$T/fold2" "$T/fold3" && mkdir "$T/fold2"
run random --shape 2,3 --shape 4 --seed 5 -o "$T/fold1/"
expect_code 0 "random -o DIR/"
if [ -f "$T/fold1/draw0.npy" ] && [ -f "$T/fold1/draw1.npy" ]; then pass; else fail "random -o DIR/: $(ls "$T/fold1" 2>&1)"; fi
run attend -x "$x" --show weights,context -o "$T/fold2"
expect_code 0 "attend -o EXISTING_DIR"
if [ -f "$T/fold2/weights.npy" ] && [ -f "$T/fold2/context.npy" ]; then pass; else fail "attend -o DIR: $(ls "$T/fold2" 2>&1)"; fi
run softmax "$x" -o "$T/fold3/"
expect_code 0 "softmax -o DIR/ (one result)"
if [ -f "$T/fold3/softmax.npy" ]; then pass; else fail "softmax -o DIR/: $(ls "$T/fold3" 2>&1)"; fi
run random --shape 2,3 --seed 5 -o "$T/fold4/"
expect_code 0 "random -o DIR/ (one draw)"
if [ -f "$T/fold4/draw0.npy" ]; then pass; else fail "random -o DIR/, one draw: $(ls "$T/fold4" 2>&1)"; fi
printf 'x\n' >"$T/plain.txt"
run attend -x "$x" --show weights,context -o "$T/plain.txt/"
expect_code 2 "-o FILE/ of a regular file"
expect_err_has "not a directory" "-o FILE/ of a regular file"
# ... for one result's DIR/ too (softmax -o FILE/ said "Not a directory", exit 1: the same case
# with another status; from a pipelines audit)
run softmax "$x" -o "$T/plain.txt/"
expect_code 2 "softmax -o FILE/ of a regular file"
expect_err_has "$T/plain.txt/: not a directory (npy output to a folder: one NAME.npy a result)" "softmax -o FILE/: named"
# ... said before the computation: inputs that overflow fail later, and are not what is reported
printf '1e20 1e20\n1e20 1e20\n' >"$T/overflowing.txt"
for o in "$T/plain.txt" "$T/plain.txt/"; do
    run attend -x "$T/overflowing.txt" --show weights,context --format npy -o "$o"
    expect_code 2 "-o $o of a regular file, before the computation"
    expect_err_has "$o: not a directory (npy output to a folder: one NAME.npy a result)" "-o $o: named before the computation"
done
run random --shape 2,3 --shape 4 --seed 5 -o "$T/two.npy"
expect_code 2 "random -o x.npy of two draws"
expect_err_has "or a folder ($T/two/, one NAME.npy each)" "the advice names a folder as -o takes it"
