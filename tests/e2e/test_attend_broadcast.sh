# Second adversarial audit of attend (random configurations against a float64 NumPy reference,
# hostile inputs): each finding written failing-first. Expected outputs are the same command with
# the same data in another shape, or the rule the README states.

# "A result has a batch dimension when an input has one (-x B×T×D, or a 4-D -q/-k/-v), and a
# head dimension when an input has one or --heads is given ... 2-D inputs give 2-D results".
# A --mask or --bias may carry leading dimensions of 1 (it "broadcasts to (B, H, Tq, Tk)"):
# those must not add a batch or head dimension to some results (context, weights) and not to
# others (output), as they did. The results equal those of the same mask without them.
printf '1 2\n0.5 -1\n' > "$T/q2"
printf '1 0\n0 1\n2 1\n' > "$T/k2"
printf '# [0]\n1 2\n0.5 -1\n# [1]\n0 1\n1 1\n' > "$T/q3"
printf '1 0 1\n1 1 0\n' > "$T/mask2"
printf '# [0, 0]\n1 0 1\n1 1 0\n' > "$T/mask4"
printf '# [0]\n1 0 1\n1 1 0\n' > "$T/mask3"
printf '# [0]\n0 -1 0.5\n1 0 0\n# [1]\n0 0 -inf\n2 0 0\n' > "$T/bias3"
printf '# [0, 0]\n0 -1 0.5\n1 0 0\n# [0, 1]\n0 0 -inf\n2 0 0\n' > "$T/bias4"
printf '1 2\n0.5 -1\n2 1\n' > "$T/x2"
printf '1 0 1\n1 1 0\n0 1 1\n' > "$T/xmask2"
printf '# [0, 0]\n1 0 1\n1 1 0\n0 1 1\n' > "$T/xmask4"
all=weights,context,weights-mean,output,scores,scaled
same_as() {  # same_as DESCRIPTION -- ARGS-A -- ARGS-B: csv output of both byte-identical
    local what=$1; shift 2
    local a=() b=()
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift; b=("$@")
    "$ATTN" "${a[@]}" --format csv > "$T/same_a" 2> /dev/null; local ca=$?
    "$ATTN" "${b[@]}" --format csv > "$T/same_b" 2> /dev/null; local cb=$?
    if [ "$ca" = 0 ] && [ "$cb" = 0 ] && cmp -s "$T/same_a" "$T/same_b"; then pass
    else fail "$what: exit $ca/$cb, outputs differ: $(diff "$T/same_a" "$T/same_b" | head -n 4 | tr '\n' '|')"; fi
}
same_as "2-D Q/K/V with a 1x1xTqxTk mask" -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mask2" --show $all \
    -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mask4" --show $all
same_as "2-D Q/K/V with a 1xTqxTk mask" -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mask2" --show $all \
    -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mask3" --show $all
same_as "3-D Q (heads) with a 1xHxTqxTk bias" -- attend -q "$T/q3" -k "$T/k2" -v "$T/k2" --bias "$T/bias3" --show $all \
    -- attend -q "$T/q3" -k "$T/k2" -v "$T/k2" --bias "$T/bias4" --show $all
same_as "-x T×D with a 1x1xTxT mask" -- attend -x "$T/x2" --mask "$T/xmask2" --show weights,context,weights-mean,output \
    -- attend -x "$T/x2" --mask "$T/xmask4" --show weights,context,weights-mean,output
run attend -q "$T/q3" -k "$T/k2" -v "$T/k2" --bias "$T/bias4" --show context --format csv
expect_code 0 "3-D Q with a 4-D bias"
expect_out_has "# context [1] 2x2" "3-D Q with a 4-D bias: context is (H, Tq, d_v), no batch dimension"

# "Labels are printed with control characters (ESC, CSI and the other C0/C1 codes) replaced by
# '?', in every output." A label file that is not valid UTF-8 passed its bytes through: a lone
# 0x9B is CSI on an 8-bit terminal, and the json (which must be UTF-8) no longer parsed.
printf 'a\377\nb\233c\n' > "$T/labels_bad_utf8"
printf 'x\303\251\n\342\202\254\n' > "$T/labels_utf8"
run attend -q "$T/q2" -k "$T/q2" -v "$T/q2" --labels "$T/labels_bad_utf8" --show weights --format json
expect_code 0 "labels that are not UTF-8"
expect_out_has '"labels": ["a?", "b?c"]' "labels: bytes that are not UTF-8 become '?'"
run attend -q "$T/q2" -k "$T/q2" -v "$T/q2" --labels "$T/labels_utf8" --show weights --format json
expect_out_has "$(printf '"labels": ["x\303\251", "\342\202\254"]')" "labels: valid UTF-8 is kept"

# "-o - is standard output ... devices, FIFOs and standard output are written in place".
# -o /dev/stdout (or /dev/stderr) with the stream redirected to a file replaced that file by
# a new one: what the shell wrote there before and after attn (`>> log`) was lost.
printf '1 2\n' > "$T/row"
printf 'earlier\n' > "$T/log"
{ echo before; "$ATTN" softmax "$T/row" --format csv -o /dev/stdout; echo after; } >> "$T/log" 2> /dev/null
printf 'earlier\nbefore\n0.268941432,0.731058598\nafter\n' > "$T/log_expected"
if cmp -s "$T/log" "$T/log_expected"; then pass; else fail "-o /dev/stdout >> log: $(tr '\n' '|' < "$T/log")"; fi
printf 'earlier\n' > "$T/errlog"
{ echo before >&2; "$ATTN" softmax "$T/row" --format csv -o /dev/stderr; echo after >&2; } 2>> "$T/errlog" > /dev/null
printf 'earlier\nbefore\n0.268941432,0.731058598\nafter\n' > "$T/errlog_expected"
if cmp -s "$T/errlog" "$T/errlog_expected"; then pass; else fail "-o /dev/stderr 2>> log: $(tr '\n' '|' < "$T/errlog")"; fi

# "Labels are printed with control characters ... replaced by '?', in every output": the names
# of a model file's tensors too. attn ls (and the message naming what an .npz holds) printed
# them raw, so a file could drive the terminal (here ESC [31m, and an OSC title in the npz).
st_header='{"\u001b[31mred":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}}'
{ printf "\\$(printf '%03o' ${#st_header})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$st_header"; printf '\000\000\200\077'; } > "$T/esc.safetensors"
run ls "$T/esc.safetensors"
expect_code 0 "ls of a tensor named with an escape sequence"
if grep -q "$(printf '\033')" "$T/out"; then fail "ls printed a raw ESC"; else pass; fi
expect_out_has "?[31mred" "ls shows the name with ESC as '?'"

# --mask is boolean (nonzero = may attend, PyTorch SDPA's bool polarity), but PyTorch also takes
# a float attn_mask that is added (0 keep, -inf or -1e9 drop): given to --mask, such a mask
# silently attended exactly where it meant to drop. A negative value says so on stderr.
printf '0 -1e9\n0 0\n' > "$T/additive_mask"
run attend -x "$T/q2" --mask "$T/additive_mask" --show weights --format csv
expect_code 0 "--mask with negative values still runs (nonzero = may attend)"
expect_err_has "belongs in --bias" "--mask with negative values: a note points to --bias"

# "(n,) is one row" (Input formats): -q given as an .npy vector (a single query, d_k entries)
# was refused ("queries (2,) has 1 dimensions"), though the CLI meant to accept it (only -k and
# -v have "is a vector" errors). It is the query row [1, 2]: the same as the text row "1 2".
printf '\223NUMPY\001\000v\000{\047descr\047: \047<f4\047, \047fortran_order\047: False, \047shape\047: (2,), }                                                            \012\000\000\200?\000\000\000@' > "$T/qvec.npy"
printf '1 2\n' > "$T/qrow"
same_as "-q as an (n,) .npy vector = the same query as a 1×n row" \
    -- attend -q "$T/qvec.npy" -k "$T/k2" -v "$T/k2" --show weights,context \
    -- attend -q "$T/qrow" -k "$T/k2" -v "$T/k2" --show weights,context

# The same rule for --mask and --bias: a (Tk,) .npy vector was refused ("--mask is 2 but the
# scores are 2x2"), though NumPy and PyTorch broadcast it over the queries. It is one row.
npy_vec3() {  # npy_vec3 FILE DESCR DATA: a 3-entry .npy vector (DESCR is 3 characters)
    printf '\223NUMPY\001\000v\000{\047descr\047: \047%s\047, \047fortran_order\047: False, \047shape\047: (3,), }                                                            \012' "$2" > "$1"
    printf "$3" >> "$1"
}
npy_vec3 "$T/mvec.npy" '|b1' '\001\000\001'
printf '1 0 1\n' > "$T/mrow"
same_as "--mask as a (Tk,) .npy vector = the same mask as a 1×Tk row" \
    -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mvec.npy" --show weights,context \
    -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mrow" --show weights,context
npy_vec3 "$T/bvec.npy" '<f4' '\000\000\000?\000\000\200\277\000\000\000\000'  # 0.5, -1, 0
printf '0.5 -1 0\n' > "$T/brow"
same_as "--bias as a (Tk,) .npy vector = the same bias as a 1×Tk row" \
    -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --bias "$T/bvec.npy" --show weights,context \
    -- attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --bias "$T/brow" --show weights,context
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --mask "$T/mvec.npy" --show weights --format csv
if [ "$(grep -cE '^[0-9.e-]+,0,[0-9.e-]+$' "$T/out")" -eq 2 ]; then pass; else fail "the (Tk,) mask drops key 1 for every query: $(cat "$T/out")"; fi

# Two inputs on '-' were caught only when the second was read, after the first had taken
# standard input: the message was about its bytes ("--mask is 1x1 but the scores are 2x3",
# "no numbers found"). Every '-' is now claimed before anything is read.
for pair in "--lengths - --mask -" "--mask - --bias -" "--labels - --key-labels -" "--bias - --mask -"; do
    # shellcheck disable=SC2086  # word splitting of $pair is intended
    printf '1\n' | "$ATTN" attend -q "$T/q2" -k "$T/k2" -v "$T/k2" $pair >"$T/out" 2>"$T/err"; CODE=$?
    expect_code 2 "attend $pair"
    expect_err_has "at most one input may be '-'" "attend $pair: the message"
done

# Two outputs of one run naming the same file kept only the last one written, exit 0: --svg F
# -o F lost the picture, --svg F --html F one of the two, --svg DIR/weights.npy -o DIR the
# weights or the picture. Refused (usage) before anything is written.
for pair in "--svg $T/same.out -o $T/same.out" "--svg $T/same.out --html $T/same.out -o /dev/null" \
            "--show weights,context --format npy -o $T/samedir --svg $T/samedir/weights.npy"; do
    rm -rf "$T/same.out" "$T/samedir"
    # shellcheck disable=SC2086  # word splitting of $pair is intended
    run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" $pair
    expect_code 2 "attend $pair"
    expect_err_has "name the same file" "attend $pair: the message says why"
    if [ -e "$T/same.out" ] || [ -e "$T/samedir" ]; then fail "attend $pair left a file"; else pass; fi
done
# -o /dev/stdout with standard output a pipe: /dev/stdout links to "pipe:[N]", and attn tried
# to make a temporary file in /proc/self/fd (exit 1). It is standard output, written in place.
"$ATTN" attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --format csv -o /dev/stdout 2>"$T/err" | cat > "$T/via_dev"
code=${PIPESTATUS[0]}
"$ATTN" attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --format csv > "$T/via_dash"
if [ "$code" = 0 ] && [ -s "$T/via_dev" ] && cmp -s "$T/via_dev" "$T/via_dash"; then pass
else fail "-o /dev/stdout into a pipe: exit $code, $(head -c 200 "$T/err")"; fi
# Two outputs on standard output, one named by a path that is it, were glued together (exit 0);
# --svg - -o - printed the SVG alone, dropping the matrices -o - asked for.
for pair in "--svg - -o /dev/stdout --show weights" "--svg /dev/stdout --show weights" "--svg - -o -"; do
    # shellcheck disable=SC2086  # word splitting of $pair is intended
    run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" $pair
    expect_code 2 "attend $pair: two outputs on standard output"
    expect_out_empty "attend $pair: nothing printed"
done
# ... also through a symbolic link whose target does not exist yet (the SVG was lost, exit 0).
rm -f "$T/same.t" "$T/same.l"; ln -s same.t "$T/same.l"
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --svg "$T/same.l" -o "$T/same.t"
expect_code 2 "--svg LINK -o TARGET, the link dangling"
if [ -e "$T/same.t" ]; then fail "--svg LINK -o TARGET wrote a file"; else pass; fi
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --svg /dev/null --html /dev/null -o /dev/null
expect_code 0 "--svg, --html and -o all /dev/null (a device, written in place) is fine"

# A labels file saved with a UTF-8 byte-order mark (Windows editors) kept the invisible U+FEFF
# in its first label; number files skip it already.
printf '\357\273\277a\r\nb\r\n' > "$T/labels_bom"
run attend -q "$T/q2" -k "$T/q2" -v "$T/q2" --labels "$T/labels_bom" --show weights --format json
expect_out_has '"labels": ["a", "b"]' "labels: a byte-order mark is not part of the first label"
