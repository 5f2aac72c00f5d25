# PyTorch's mask names with PyTorch's polarity: --attn-mask (bool: True = not allowed; float:
# added) and --key-padding-mask ((B, Tk); bool: True = padding; float: added), passed as a user has them, give
# what nn.MultiheadAttention gives (data/mha/torch_masks, made by its generate.py with torch).
D=$ROOT/data/mha/torch_masks
ALLCLOSE=$(dirname "$ATTN")/allclose
mha=(-x "$D/x.npy" --heads 2 --in-proj "$D/in_proj_weight.npy" --in-proj-bias "$D/in_proj_bias.npy"
     --out-proj "$D/out_proj_weight.npy" --out-proj-bias "$D/out_proj_bias.npy")
same_as_torch() {  # same_as_torch CASE ATTN-ARGS...: weights and output against torch's
    local case=$1; shift
    rm -rf "$T/$case"
    run attend "${mha[@]}" "$@" --show weights,output --format npy -o "$T/$case"
    expect_code 0 "--attn-mask/--key-padding-mask, $case"
    for r in weights output; do
        if msg=$("$ALLCLOSE" "$T/$case/$r.npy" "$D/${r}_$case.npy" --rtol 1e-5 --atol 1e-6 2>&1); then pass
        else fail "$case: $r differs from nn.MultiheadAttention's: $msg"; fi
    done
}
same_as_torch bool --attn-mask "$D/attn_mask_bool.npy"
same_as_torch float --attn-mask "$D/attn_mask_float.npy"
same_as_torch bool_padding --attn-mask "$D/attn_mask_bool.npy" --key-padding-mask "$D/key_padding_mask.npy"
same_as_torch padding --key-padding-mask "$D/key_padding_mask.npy"
same_as_torch float_padding --key-padding-mask "$D/key_padding_mask_float.npy"
# Booleans as integers, or as members of an .npz, are the same booleans (never added).
rm -rf "$T/padding"
same_as_torch padding --key-padding-mask "$D/key_padding_mask_int64.npy"
rm -rf "$T/padding"
same_as_torch padding --key-padding-mask "$D/masks.npz:key_padding_mask"
rm -rf "$T/bool"
same_as_torch bool --attn-mask "$D/masks.npz:attn_mask"
same_as_torch bool_float_padding --attn-mask "$D/attn_mask_bool.npy" --key-padding-mask "$D/key_padding_mask_float.npy"
# A 3-D attn_mask is nn.MultiheadAttention's (B*H, Tq, Tk), batch item after batch item (it was
# refused for B > 1: "the scores are 2x2x5x5"): bool, and float (the sum above as one mask).
same_as_torch bool_3d --attn-mask "$D/attn_mask_bool_3d.npy"
rm -rf "$T/bool_float_padding"
same_as_torch bool_float_padding --attn-mask "$D/attn_mask_float_3d.npy"
# ... by the problem's batch and heads: one query head over two K/V heads makes H = 2, so a
# (2, Tq, Tk) mask with B = 2 is a mask per head, as --mask reads it (it was taken per batch
# item: B·H was counted with -q's one head).
"$ATTN" random --seed 1 --shape 2,1,5,8 --format npy -o "$T/q1.npy"
"$ATTN" random --seed 2 --shape 2,2,5,8 --format npy -o "$T/kv2.npy"
rows0='0 1 1 1 1|0 0 1 1 1|0 0 0 1 1|0 0 0 0 1|0 0 0 0 0' rows1='0 0 0 0 1|0 0 0 0 1|1 0 0 0 0|1 1 0 0 0|1 1 1 0 0'
blocks() {  # blocks SED: the two 5x5 blocks of 1 (forbidden) and 0, rewritten by SED
    printf '# m [0] 5x5\n%s\n\n# m [1] 5x5\n%s\n' "$(tr '|' '\n' <<<"$rows0")" "$(tr '|' '\n' <<<"$rows1")" |
        sed "/^#/!{$1}"
}
blocks 's/1/True/g; s/0/False/g' >"$T/forbid.txt"
blocks 's/1/x/g; s/0/1/g; s/x/0/g' >"$T/allow.txt"
"$ATTN" attend -q "$T/q1.npy" -k "$T/kv2.npy" -v "$T/kv2.npy" --attn-mask "$T/forbid.txt" --show weights --format npy -o "$T/w1.npy"
"$ATTN" attend -q "$T/q1.npy" -k "$T/kv2.npy" -v "$T/kv2.npy" --mask "$T/allow.txt" --show weights --format npy -o "$T/w2.npy"
if [ -s "$T/w1.npy" ] && cmp -s "$T/w1.npy" "$T/w2.npy"; then pass; else fail "a 3-D --attn-mask with one query head over two K/V heads: not per head"; fi
# As text: the float mask is added; one of only 0 and 1 is boolean (1 = padding), not added.
printf '0 0 -0.5 0 0\n0 0 0 -inf -inf\n' >"$T/padding_float.txt"
rm -rf "$T/float_padding"
same_as_torch float_padding --key-padding-mask "$T/padding_float.txt"
printf '0 0 0 0 0\n0 0 0 1 1\n' >"$T/padding_01.txt"
rm -rf "$T/padding"
same_as_torch padding --key-padding-mask "$T/padding_01.txt"
# The bool mask pasted as torch prints it (True/False text) is the same mask.
rm -rf "$T/bool"
same_as_torch bool --attn-mask "$D/attn_mask_bool.txt"
# The bool mask as torch's float mask of it (True -> -inf, False -> 0; what nn.MultiheadAttention
# makes of a bool mask), as text and as a float32 .npy, is the same mask (read as bits).
printf '0 -inf -inf -inf -inf\n0 0 -inf -inf -inf\n0 0 0 -inf -inf\n0 0 0 0 -inf\n-inf 0 0 0 0\n' >"$T/neg_inf.txt"
"$ATTN" concat "$T/neg_inf.txt" --format npy -o "$T/neg_inf.npy"
for f in neg_inf.txt neg_inf.npy; do
    rm -rf "$T/bool"
    same_as_torch bool --attn-mask "$T/$f"
done
# As --mask, the same keys as 0/1 floats (SDPA's polarity) in a float32 .npy.
printf '1 0 0 0 0\n1 1 0 0 0\n1 1 1 0 0\n1 1 1 1 0\n0 1 1 1 1\n' >"$T/sdpa_float.txt"
"$ATTN" concat "$T/sdpa_float.txt" --format npy -o "$T/sdpa_float.npy"
rm -rf "$T/bool"
same_as_torch bool --mask "$T/sdpa_float.npy"
# --mask keeps SDPA's polarity: the same buffer given to --mask attends where torch does not.
run attend "${mha[@]}" --mask "$D/attn_mask_bool.npy" --show weights --format npy -o "$T/sdpa.npy"
if "$ALLCLOSE" "$T/sdpa.npy" "$D/weights_bool.npy" --rtol 1e-5 --atol 1e-6 >/dev/null 2>&1; then
    fail "--mask took PyTorch's attn_mask polarity"; else pass; fi
# --mask with --key-padding-mask: a key must be allowed by both (the mask as SDPA's bool, i.e.
# the inverse of the attn_mask above, gives the bool_padding case).
printf '1 0 0 0 0\n1 1 0 0 0\n1 1 1 0 0\n1 1 1 1 0\n0 1 1 1 1\n' >"$T/sdpa_mask"
same_as_torch bool_padding --mask "$T/sdpa_mask" --key-padding-mask "$D/key_padding_mask.npy"
# Refusals.
run attend "${mha[@]}" --attn-mask "$D/attn_mask_float.npy" --bias "$D/attn_mask_float.npy"
expect_code 2 "a float --attn-mask with --bias"
expect_err_has "give one of them" "a float --attn-mask with --bias: message"
run attend "${mha[@]}" --attn-mask "$D/attn_mask_float.npy" --key-padding-mask "$D/key_padding_mask_float.npy"
expect_code 2 "a float --attn-mask with a float --key-padding-mask"
expect_err_has "a float --key-padding-mask with values other than 0 and -inf is added to the scores, as --attn-mask is" \
    "a float --attn-mask with a float --key-padding-mask: message"
# A float --attn-mask of only 0 and -inf is a mask: with --bias, as its boolean form is.
printf 'False True True True True\nFalse False True True True\nFalse False False True True\nFalse False False False True\nTrue False False False False\n' >"$T/neg_inf_bool.txt"
"$ATTN" attend "${mha[@]}" --attn-mask "$T/neg_inf_bool.txt" --bias "$D/attn_mask_float.npy" --show weights --format npy -o "$T/nb_bool.npy"
run attend "${mha[@]}" --attn-mask "$T/neg_inf.npy" --bias "$D/attn_mask_float.npy" --show weights --format npy -o "$T/nb_float.npy"
expect_code 0 "a float --attn-mask of 0 and -inf with --bias"
if cmp -s "$T/nb_bool.npy" "$T/nb_float.npy"; then pass; else fail "float 0/-inf --attn-mask with --bias: not its boolean form's weights"; fi
run attend "${mha[@]}" --key-padding-mask "$D/weights_bool.npy"
expect_code 3 "a 4-D --key-padding-mask"
expect_err_has "key_padding_mask is (B, Tk)" "a 4-D --key-padding-mask: message"
printf '1 0 1 0\n' >"$T/pad4"
run attend "${mha[@]}" --key-padding-mask "$T/pad4"
expect_code 3 "--key-padding-mask of 4 keys for 5"
