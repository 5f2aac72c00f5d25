# attend broadcasts as NumPy and PyTorch do: leading dimensions of 1 in a --mask or --bias add no
# dimension to the results, and an (n,) vector given to -q, --mask or --bias is one row; a --mask
# of negative (additive) values gets a note pointing to --bias. Expected outputs are the same
# command with the same data in another shape, or the rule the README states.
# (From the second adversarial audit of attend: each finding written failing-first.)

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
