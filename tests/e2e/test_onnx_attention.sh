# ONNX's own backend test cases of the Attention operator (opsets 23-25, 87 cases; written by
# data/onnx/generate.py, see data/onnx/README.md), run through attn attend as an outside
# conformance check. Each case's attn options are derived here from its ONNX attributes and
# inputs (case.txt), never chosen per case; every output it has (Y, present_key/value,
# qk_matmul_output) is compared with build/allclose.
#
# A case that needs an option still pending on main (NEEDS below) runs too, but is not
# counted as a pass: the file reports "N of 87 pass", lists every failing case with its reason,
# and asserts that every case without a pending need passes and that exactly
# ONNX_EXPECT_PASS cases pass: all 87 since --past-k/--past-v, --softmax-precision and the
# per-item bottom-right causal rule (--causal=bottom-right with --lengths).
ONNX_EXPECT_PASS=87
ALLCLOSE=$(dirname "$ATTN")/allclose

# npy_dims FILE: the shape of a .npy as "2,3,4", read from its header.
npy_dims() {
    head -c 256 "$1" | tr -d '\0' | sed -n "s/.*'shape': (\([0-9, ]*\)).*/\1/p" | tr -d ' ' | sed 's/,$//'
}

# npy_fill FILE DIMS BYTES: a float32 .npy of shape DIMS, every value the 4 bytes BYTES
# (printf escapes), for padding a short attn_mask.
npy_fill() {
    local n=1 d hdr
    for d in ${2//,/ }; do n=$((n * d)); done
    hdr="{'descr': '<f4', 'fortran_order': False, 'shape': ($2,), }"
    while [ $(((10 + ${#hdr} + 1) % 64)) -ne 0 ]; do hdr+=" "; done
    { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(((${#hdr} + 1) % 256)))\\x$(printf %02x $(((${#hdr} + 1) / 256)))"
      printf '%s\n' "$hdr"; for ((d = 0; d < n; d++)); do printf "$3"; done; } > "$1"
}

# onnx_case DIR: sets ARGS (attn attend options), SHOWS (output=attn result name, ...),
# NEEDS (pending features used) and DTYPE (Q's) from DIR/case.txt.
onnx_case() {
    local dir=$1 key value name dtype dims
    local -A attr=() in_dtype=() in_dims=() out_dtype=()
    local outs=()
    while read -r key value; do
        case $key in
            '#'*|'') ;;
            input) read -r name dtype dims <<<"$value"; in_dtype[$name]=$dtype; in_dims[$name]=$dims ;;
            output) read -r name dtype dims <<<"$value"; out_dtype[$name]=$dtype; outs+=("$name") ;;
            *) attr[$key]=$value ;;
        esac
    done < "$dir/case.txt"
    ARGS=(-q "$dir/Q.npy" -k "$dir/K.npy" -v "$dir/V.npy") SHOWS=() NEEDS=() DTYPE=${in_dtype[Q]}
    local qdims=(${in_dims[Q]//,/ }) kdims=(${in_dims[K]//,/ })
    local rank=${#qdims[@]} tq=${qdims[-2]} tk=${kdims[-2]} past=0 y=context
    if [ "$rank" -eq 3 ]; then  # ONNX's 3-D form: heads side by side in the last dimension
        ARGS+=(--heads "${attr[q_num_heads]}" --kv-heads "${attr[kv_num_heads]}"); y=output
    fi
    [ -n "${attr[scale]:-}" ] && ARGS+=(--scale "${attr[scale]}")
    [ -n "${attr[softcap]:-}" ] && ARGS+=(--softcap "${attr[softcap]}")
    if [ -n "${in_dtype[past_key]:-}" ]; then
        local pdims=(${in_dims[past_key]//,/ }); past=${pdims[-2]}
        ARGS+=(--past-k "$dir/past_key.npy" --past-v "$dir/past_value.npy"); NEEDS+=(--past-k --past-v)
    fi
    local total=$((tk + past)) mask=${dir}/attn_mask.npy
    if [ -n "${in_dtype[attn_mask]:-}" ]; then
        local mdims=(${in_dims[attn_mask]//,/ })
        if [ "${mdims[-1]}" -lt "$total" ]; then  # ONNX pads a short mask with masked keys
            local pad=("${mdims[@]}"); pad[-1]=$((total - mdims[-1]))
            local fill='\x00\x00\x80\xff'; [ "${in_dtype[attn_mask]}" = bool ] && fill='\x00\x00\x00\x00'
            npy_fill "$T/pad.npy" "$(IFS=,; echo "${pad[*]}")" "$fill"
            "$ATTN" concat --axis -1 "$mask" "$T/pad.npy" -o "$T/mask.npy" || NEEDS+=(mask-padding)
            mask=$T/mask.npy
        fi
        if [ "${in_dtype[attn_mask]}" = bool ]; then ARGS+=(--mask "$mask"); else ARGS+=(--bias "$mask"); fi
    fi
    # the causal frontier and the window are at p = i + offset: ONNX's offset is the past's
    # length with a cache (bottom-right), nonpad_kv_seqlen[b] - Tq with nonpad_kv_seqlen
    # (bottom-right per batch item), else 0 (top-left)
    local align=top-left
    if [ "$past" -gt 0 ]; then align=bottom-right; fi
    if [ -n "${in_dtype[nonpad_kv_seqlen]:-}" ]; then
        ARGS+=(--lengths "$dir/nonpad_kv_seqlen.npy")
        local lengths
        lengths=$("$ATTN" concat "$dir/nonpad_kv_seqlen.npy" --format csv | tr ',\n' '  ')
        for name in $lengths; do
            [ "$name" -ne "$tk" ] && { NEEDS+=(per-item-bottom-right); break; }
        done
        align=bottom-right
    fi
    local left=${attr[left_window_size]:--1} right=${attr[right_window_size]:--1}
    if [ "${attr[is_causal]:-0}" -ne 0 ]; then
        ARGS+=(--causal="$align")
    elif [ "$align" != top-left ] && { [ "$left" -ge 0 ] || [ "$right" -ge 0 ]; }; then
        NEEDS+=(--causal-offset)  # a window at an offset without a causal rule
    fi
    if [ "$left" -ge 0 ] || [ "$right" -ge 0 ]; then
        local w=""; [ "$left" -ge 0 ] && w=$left  # L, L:R or :R (a side left out: unbounded)
        [ "$right" -ge 0 ] && w+=":$right"
        ARGS+=(--window "$w")
    fi
    case ${attr[softmax_precision]:-} in
        '') ;;
        1) ARGS+=(--softmax-precision f32); NEEDS+=(--softmax-precision) ;;
        11) ARGS+=(--softmax-precision f64); NEEDS+=(--softmax-precision) ;;
        *) NEEDS+=("softmax_precision=${attr[softmax_precision]}") ;;
    esac
    local shown=() out
    for out in "${outs[@]}"; do
        case $out in
            Y) SHOWS+=("Y=$y") ;;
            present_key) SHOWS+=(present_key=keys) ;;
            present_value) SHOWS+=(present_value=values) ;;
            qk_matmul_output)  # 0: scale·Q·Kᵀ (= capped without a softcap; ONNX's reference
                # returns the capped scores for 0 as for 1), 1: softcapped, 2: + bias and
                # masks, 3: softmax
                case ${attr[qk_matmul_output_mode]:-0} in
                    0|1) SHOWS+=(qk_matmul_output=capped) ;;
                    2) SHOWS+=(qk_matmul_output=scaled) ;;
                    3) SHOWS+=(qk_matmul_output=weights) ;;
                esac ;;
        esac
        shown+=("${SHOWS[-1]#*=}")
    done
    ARGS+=(--show "$(IFS=,; echo "${shown[*]}")" --format npy)
}

[ -x "$ALLCLOSE" ] || fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
onnx_total=0 onnx_passed=0 onnx_pending=0 onnx_report=""
for dir in "$ROOT"/data/onnx/test_attention*/; do
    dir=${dir%/}; case_name=$(basename "$dir")
    onnx_total=$((onnx_total + 1))
    onnx_case "$dir"
    rm -rf "$T/res"
    "$ATTN" attend "${ARGS[@]}" -o "$T/res" >"$T/out" 2>"$T/err" </dev/null
    code=$? why=""
    if [ "$code" -ne 0 ]; then
        why="attn exit $code: $(head -n 1 "$T/err")"
    else
        # float32 cases to a few float32 ulps (measured worst 2.4e-7); float16 ones (ONNX
        # computes them in float16, attn in float32) to 2 float16 ulps (measured worst 4.7e-4)
        tol=(--rtol 1e-6 --atol 1e-6); [ "$DTYPE" = float16 ] && tol=(--rtol 1e-3 --atol 1e-3)
        [ -d "$T/res" ] || { mkdir "$T/res.d"; mv "$T/res" "$T/res.d/${SHOWS[0]#*=}.npy"; mv "$T/res.d" "$T/res"; }
        for s in "${SHOWS[@]}"; do
            if ! "$ALLCLOSE" "$T/res/${s#*=}.npy" "$dir/${s%%=*}.npy" "${tol[@]}" 2>"$T/cmp"; then
                why+="${why:+; }${s%%=*} (attn ${s#*=}): $(head -n 1 "$T/cmp")"
            fi
        done
    fi
    pending=""; [ ${#NEEDS[@]} -gt 0 ] && pending=" [needs ${NEEDS[*]}]"
    if [ -z "$why" ]; then
        onnx_passed=$((onnx_passed + 1))
        if [ -z "$pending" ]; then pass; fi  # a pending case that passes is counted below
    elif [ -n "$pending" ]; then
        onnx_pending=$((onnx_pending + 1))
        onnx_report+="  $case_name$pending: $why"$'\n'
    else
        fail "ONNX $case_name: attn attend ${ARGS[*]}: $why"
        onnx_report+="  $case_name: $why"$'\n'
    fi
done
echo "[e2e] ONNX Attention conformance: $onnx_passed of $onnx_total pass"
[ -n "$onnx_report" ] && printf 'failing ONNX cases:\n%s' "$onnx_report"
if [ "$onnx_total" -eq 87 ]; then pass; else fail "ONNX cases: found $onnx_total under data/onnx, expected 87"; fi
if [ "$onnx_passed" -eq "$ONNX_EXPECT_PASS" ]; then pass
else fail "ONNX cases: $onnx_passed of $onnx_total pass, expected $ONNX_EXPECT_PASS"; fi
