# --score general|additive|cosine against torch (data/scores, made by its generate.py from
# d2l's AdditiveAttention and masked_softmax, Luong's general score and F.cosine_similarity, in
# float64): weights and context on every arch this machine runs, the context alone (the fused
# path for general and cosine) too; then the default scale, the pictures and usage errors.
D=$ROOT/data/scores
ALLCLOSE=$(dirname "$ATTN")/allclose
# Every arch of the table this CPU runs (the names from the binary's own message, as test_arch.sh).
arches=""
for a in $("$ATTN" bench --op matmul --sizes 8 --arch sse9 2>&1 | sed -n "s/.*expected auto, //p" | sed 's/ or /, /; s/, / /g'); do
    ATTN_ARCH=$a "$ATTN" --version >/dev/null 2>&1 && arches="$arches $a"
done
[ -n "$arches" ] || arches="scalar"
echo "[e2e] test_scores.sh: arches$arches"
score_case() {  # score_case NAME ATTN-ARGS...: weights and context, then context alone, per arch
    local case=$1; shift
    for arch in $arches; do
        rm -rf "$T/$case"
        run attend "$@" --arch "$arch" --show weights,context --format npy -o "$T/$case"
        expect_code 0 "$case --arch $arch"
        for r in weights context; do
            if msg=$("$ALLCLOSE" "$T/$case/$r.npy" "$D/$case/$r.npy" --rtol 1e-5 --atol 2e-6 2>&1); then pass
            else fail "$case --arch $arch: $r differs from torch's: $msg"; fi
        done
        run attend "$@" --arch "$arch" --threads 3 --format npy -o "$T/$case.ctx.npy"
        if msg=$("$ALLCLOSE" "$T/$case.ctx.npy" "$D/$case/context.npy" --rtol 1e-5 --atol 2e-6 2>&1); then pass
        else fail "$case --arch $arch: context alone differs from torch's: $msg"; fi
    done
}
add=(--score additive --wa-q "$D/additive_d2l/wa_q.npy" --wa-k "$D/additive_d2l/wa_k.npy" --va "$D/additive_d2l/va.npy")
score_case additive_d2l -q "$D/additive_d2l/q.npy" -k "$D/additive_d2l/k.npy" -v "$D/additive_d2l/v.npy" \
    --lengths "$D/additive_d2l/lengths.txt" "${add[@]}"
# d2l's module's own float32 output, too.
if msg=$("$ALLCLOSE" "$T/additive_d2l/context.npy" "$D/additive_d2l/torch_context.npy" --rtol 1e-5 --atol 1e-5 2>&1); then pass
else fail "additive: d2l's AdditiveAttention output differs: $msg"; fi
H=$D/additive_heads
score_case additive_heads -q "$H/q.npy" -k "$H/k.npy" -v "$H/v.npy" --causal=bottom-right --score additive \
    --wa-q "$H/wa_q.npy" --wa-k "$H/wa_k.npy" --va "$H/va.npy"
G=$D/general
score_case general -q "$G/q.npy" -k "$G/k.npy" -v "$G/v.npy" --mask "$G/mask.npy" --score general --wa "$G/wa.npy"
C=$D/cosine
score_case cosine -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --causal --score cosine

# The scale: 1 for additive and cosine unless given; --scale applies to every score.
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --score cosine --show scores,scaled --format npy -o "$T/cos"
expect_code 0 "cosine scores"
if "$ALLCLOSE" "$T/cos/scores.npy" "$T/cos/scaled.npy" --rtol 0 --atol 0 >/dev/null 2>&1; then pass
else fail "cosine: scaled != scores (the default scale is 1)"; fi
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --score cosine --scale 2 --show scaled --format csv
expect_code 0 "cosine --scale 2"
if awk -F, 'NF { for (i = 1; i <= NF; i++) if ($i + 0 > 2.000001 || $i + 0 < -2.000001) bad = 1 } END { exit bad }' "$T/out"; then pass
else fail "cosine --scale 2: a scaled score outside [-2, 2]"; fi
# A zero query row: every cosine is 0.
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --score cosine --show scores --format csv
if [ "$(sed -n 4p "$T/out")" = "0,0,0,0,0,0" ]; then pass; else fail "cosine: zero query row gave $(sed -n 3p "$T/out")"; fi

# Pictures and -x with heads work with every score.
X=$ROOT/data/examples/simple/x.txt
d=$(grep -v '^#' "$X" | head -1 | wc -w)
for s in general additive cosine; do
    case $s in
        general) w=(--wa "$T/w_dd") ;;
        additive) w=(--wa-q "$T/w_dh" --wa-k "$T/w_dh" --va "$T/v_h") ;;
        *) w=() ;;
    esac
    "$ATTN" random --shape "$d,$d" --seed 4 >"$T/w_dd"
    "$ATTN" random --shape "$d,5" --seed 5 >"$T/w_dh"
    "$ATTN" random --shape 5 --seed 6 >"$T/v_h"
    run attend -x "$X" --score "$s" "${w[@]}" --causal --heatmap
    expect_code 0 "--score $s --heatmap"
    run attend -x "$X" --score "$s" "${w[@]}" --svg "$T/$s.svg"
    expect_code 0 "--score $s --svg"
    [ "$s" = cosine ] || { [ "$s" = general ] && grep -qF "scale 1/" "$T/$s.svg" || grep -qF "additive scores, scale 1" "$T/$s.svg"; } \
        && pass || fail "--score $s: the picture's title does not state the scale"
done

# Usage errors name both options.
run attend -q "$G/q.npy" -k "$G/k.npy" -v "$G/v.npy" --score general
expect_code 2 "--score general without --wa"; expect_err_has "--score general needs --wa" "missing --wa: message"
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --wa "$G/wa.npy"
expect_code 2 "--wa without --score"; expect_err_has "--wa is a weight of --score general" "--wa alone: message"
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --score cosine --va "$H/va.npy"
expect_code 2 "--va with --score cosine"; expect_err_has "drop --va" "--va with cosine: message"
run attend -q "$G/q.npy" -k "$G/k.npy" -v "$G/v.npy" --score general --wa "$H/wa_q.npy"
expect_code 3 "--wa of the wrong shape"; expect_err_has "--wa: W_a has 6 rows but queries have d_q = 3" "--wa shape: message"
run attend -q "$H/q.npy" -k "$H/k.npy" -v "$H/v.npy" --score additive --wa-q "$H/wa_q.npy" --wa-k "$H/wa_q.npy" --va "$H/va.npy"
expect_code 3 "--wa-k of the wrong shape"; expect_err_has "--wa-k:" "--wa-k shape: message"
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --score cosine --show variance
expect_code 2 "--show variance with --score cosine"; expect_err_has "drop --score cosine" "variance: message"
run attend -q "$C/q.npy" -k "$C/k.npy" -v "$C/v.npy" --score bahdanau
expect_code 2 "--score bahdanau"; expect_err_has "expected dot, general, additive or cosine" "bad --score: message"
