# torch.save zip checkpoints (.pt, pytorch_model.bin) through the real binary: attn ls, the
# tensors equal to numpy's copy, nn.MultiheadAttention's output equal to torch's from the
# checkpoint's weights (in_proj, GPT-2's Conv1D c_attn, separate q/k/v), the layout warning,
# and malicious pickles refused with exit 3 without running anything.
# Fixtures: data/models/torch_save (generate.py, PROVENANCE).

TS="$ROOT/data/models/torch_save"
ALLCLOSE=$(dirname "$ATTN")/allclose

# ---- attn ls ------------------------------------------------------------------------------
run ls "$TS/state_dict.pt"; expect_code 0 "ls a torch.save checkpoint"
expect_out_has "f16         float16   (2, 3)" "ls: a float16 tensor"
expect_out_has "bf16        bfloat16  (4, 2)" "ls: a bfloat16 tensor"
expect_out_has "base_t      float32   (6, 4)" "ls: a transposed view"
expect_out_has "param       float32   (2, 2, 3)" "ls: an nn.Parameter"
expect_out_has "meta.sub.w  float32   (2, 2)" "ls: a nested dict's tensor as OUTER.INNER"
expect_out_has "ids         int64     (5,)       not readable: dtype int64 is not supported" "ls: int64 listed with a note"
expect_out_has "scalar      float32   ()         not readable: 0-d tensor" "ls: a 0-d tensor listed with a note"
if grep -q "epoch" "$T/out"; then fail "ls: the non-tensor 'epoch' listed"; else pass; fi
# a complex tensor is listed with a note, and the file's other tensors read (it refused the file)
run ls "$TS/complex.pt"; expect_code 0 "ls a checkpoint holding a complex64 tensor"
expect_out_has "z     complex64  (2,)    not readable: dtype complex64 is not supported" "ls: complex64 listed with a note"
run softmax "$TS/complex.pt:w"; expect_code 0 "a float tensor beside a complex one"
expect_out_has "0.175290391,0.0391125716,0.785597026" "softmax of complex.pt:w"
run softmax "$TS/complex.pt:z"; expect_code 3 "the complex tensor read"
expect_err_has "complex.pt:z: dtype complex64 is not supported" "the complex tensor refused by name"
run ls "$TS/mha/pytorch_model.bin"; expect_code 0 "ls pytorch_model.bin"
expect_out_has "c_attn.weight    float32  (8, 24)" "ls: GPT-2-style c_attn"
# by content too: a checkpoint under another name
cp "$TS/state_dict.pt" "$T/checkpoint"
run ls "$T/checkpoint"; expect_code 0 "ls a checkpoint recognised by content"
expect_out_has "meta.sub.w" "ls by content lists the tensors"

# ---- values: every readable tensor equals numpy's float32 copy, bit for bit ----------------
for name in f32 f16 bf16 base base_t slice expand param meta.sub.w; do
    run concat "$TS/state_dict.pt:$name" --format npy -o "$T/got.npy"; expect_code 0 "read state_dict.pt:$name"
    run concat "$TS/expected.npz:$name" --format npy -o "$T/want.npy"
    if cmp -s "$T/got.npy" "$T/want.npy"; then pass; else fail "state_dict.pt:$name differs from numpy's copy"; fi
done
# torch.save of one tensor, of a tuple (outputs.attentions as it is) and of a list in a dict:
# read as numpy's copy has them (they were refused: "holds no dict of tensors")
for got in tensor.pt tensor.pt:tensor attentions.pt:0 attentions.pt:1 nested.pt:layers.0 nested.pt:layers.1; do
    want=${got#*:}; [ "$want" = "$got" ] && want=tensor
    case $got in attentions*) want=attentions.$want ;; esac
    run concat "$TS/$got" --format npy -o "$T/got.npy"; expect_code 0 "read $got"
    run concat "$TS/collections_expected.npz:$want" --format npy -o "$T/want.npy"
    if cmp -s "$T/got.npy" "$T/want.npy"; then pass; else fail "$got differs from numpy's copy ($want)"; fi
done
run view "$TS/attentions.pt:1" --heatmap; expect_code 0 "view one layer of a saved outputs.attentions"
# The whole tuple (torch.save) or numpy.savez(*attentions) is stacked into layers as torch.stack
# does: the page holds torch.stack's values, named layer, batch, head.
exact() { grep -o '"exact":"[^"]*"' "$1" | sed -e 's/^"exact":"//' -e 's/"$//' | base64 -d | od -An -tf4 -v -w4; }
run view "$TS/attentions_stacked.npy" --html "$T/want.html"; expect_code 0 "view torch.stack's layers"
exact "$T/want.html" >"$T/want.exact"
for f in attentions.pt attentions_savez.npz; do
    run view "$TS/$f" --html "$T/got.html"; expect_code 0 "view $f as layers"
    grep -qF 'shape (2, 1, 2, 3, 3)' "$T/got.html" && grep -qF '"lead":[["layer",2,[0,1]],["batch",1,[0]],["head",2,[0,1]]]' "$T/got.html" \
        && pass || fail "$f: stacked as (layer, batch, head, T, T)"
    exact "$T/got.html" >"$T/got.exact"
    if [ -s "$T/want.exact" ] && cmp -s "$T/got.exact" "$T/want.exact"; then pass; else fail "$f: not torch.stack's values"; fi
done
run view "$TS/attentions.pt" --layer 1 --head 0 --heatmap; expect_code 0 "--layer of a saved tuple"
expect_out_has "layer 1, batch 0, head 0:" "--layer 1 chooses the tuple's second tensor"
# The same from standard input; a tuple of one layer is one layer (torch.stack of one).
run_in "$TS/attentions.pt" view - --html "$T/got.html"; expect_code 0 "a saved tuple on standard input"
exact "$T/got.html" >"$T/got.exact"
if [ -s "$T/want.exact" ] && cmp -s "$T/got.exact" "$T/want.exact"; then pass; else fail "standard input: not torch.stack's values"; fi
run view "$TS/attentions_one.pt" --layer 0 --html "$T/one.html"; expect_code 0 "--layer 0 of a tuple of one layer"
grep -qF '"names":["layer 0, batch 0, head 0","layer 0, batch 0, head 1"]' "$T/one.html" && pass \
    || fail "a tuple of one layer keeps its layer dimension"
# float64 tensors are read as float32, as a float64 .npy is (torch.stack's values again); one
# beyond float32's range is refused, as the .npy reader refuses it.
run view "$TS/attentions_f64.pt" --html "$T/got.html"; expect_code 0 "a float64 tuple"
exact "$T/got.html" >"$T/got.exact"
if [ -s "$T/want.exact" ] && cmp -s "$T/got.exact" "$T/want.exact"; then pass; else fail "float64 layers: not torch.stack's values"; fi
run softmax "$TS/f64_huge.pt"; expect_code 3 "a float64 beyond float32's range"
expect_err_has "f64_huge.pt: row 0, column 1 (0-based): value is out of float32 range" "the float64 out of range is named"
# A sequence of vectors is no layers of weights (stacked, they were read as leading dimensions
# that were not there: a heap overflow, from an audit).
run view "$TS/vectors.pt" --svg "$T/v.svg"; expect_code 3 "a sequence of vectors"
expect_err_has "a sequence of 5 tensors of shape (3,): expected layers of Tq x Tk weights" "the vectors are named"
[ -e "$T/v.svg" ] && fail "a refused view left its SVG" || pass
# A tuple of a tensor and None is no sequence to stack (torch.stack refuses it): its one tensor
# is read as it is, (batch, head, T, T).
run view "$TS/tensor_and_none.pt" --heatmap; expect_code 0 "(tensor, None)"
expect_out_has "batch 0, head 1:" "(tensor, None): its tensor, not stacked"
run view "$TS/nested.pt" --heatmap; expect_code 3 "a dict of tensors is not a sequence of layers"
expect_err_has "name one as" "a dict still asks for a name"
run softmax "$TS/state_dict.pt:ids"; expect_code 3 "an int64 tensor is refused"
expect_err_has "dtype int64 is not supported" "the int64 refusal names the dtype"
run softmax "$TS/state_dict.pt:scalar"; expect_code 3 "a 0-d tensor is refused"
run softmax "$TS/state_dict.pt:absent"; expect_code 3 "a missing tensor"
expect_err_has "no tensor 'absent' (it holds: f32" "a missing name lists the names"
run softmax "$TS/state_dict.pt"; expect_code 3 "a checkpoint of several tensors needs a name"
expect_err_has "name one as" "the bare checkpoint asks for a name"

# ---- nn.MultiheadAttention from the checkpoint = torch's output ---------------------------
M="$TS/mha"; B="$M/pytorch_model.bin"
out=(--out-proj "$B:out_proj.weight" --out-proj-bias "$B:out_proj.bias" --heads 2 --show output --format npy)
close() {  # close FILE DESCRIPTION: FILE equals torch's output
    if [ -x "$ALLCLOSE" ] && "$ALLCLOSE" "$1" "$M/output.npy" >/dev/null 2>&1; then pass; else fail "$2 differs from torch"; fi
}
run attend -x "$M/x.npy" --in-proj "$B:in_proj_weight" --in-proj-bias "$B:in_proj_bias" "${out[@]}" -o "$T/in_proj.npy"
expect_code 0 "attend with in_proj_weight from pytorch_model.bin"; close "$T/in_proj.npy" "in_proj_weight"
run attend -x "$M/x.npy" --in-proj "$B:c_attn.weight" --in-proj-bias "$B:c_attn.bias" "${out[@]}" -o "$T/c_attn.npy"
expect_code 0 "--in-proj with GPT-2's E×3E c_attn"; close "$T/c_attn.npy" "c_attn (Conv1D layout)"
if cmp -s "$T/in_proj.npy" "$T/c_attn.npy"; then pass; else fail "c_attn and in_proj_weight give different bits"; fi
qkv=(--wq "$B:q.weight" --wk "$M/model.safetensors:k.weight" --wv "$B:v.weight" --bq "$B:q.bias" --bk "$B:k.bias" --bv "$B:v.bias")
run attend -x "$M/x.npy" --linear-layout "${qkv[@]}" "${out[@]}" -o "$T/linear.npy"
expect_code 0 "separate nn.Linear weights with --linear-layout"; close "$T/linear.npy" "q/k/v.weight with --linear-layout"
if [ -s "$T/err" ]; then fail "--linear-layout given, yet stderr: $ERR"; else pass; fi
# without --linear-layout: square PyTorch weights are read as in×out, with a warning for each
run attend -x "$M/x.npy" "${qkv[@]}" "${out[@]}" -o "$T/nolinear.npy"
expect_code 0 "square PyTorch weights without --linear-layout still run"
expect_err_has "warning: --wq $B:q.weight is a square weight from a PyTorch file" "the .bin weight warns"
expect_err_has "warning: --wk $M/model.safetensors:k.weight is a square weight" "the safetensors format=pt weight warns"
# an npy weight says nothing about its origin: no warning
run attend -x "$M/x.npy" --wq "$M/x.npy" --show queries
if grep -q warning "$T/err"; then fail "a warning for a non-square .npy weight"; else pass; fi
run attend -x "$M/x.npy" --in-proj "$B:q.weight" --heads 2
expect_code 3 "--in-proj of a square weight"
expect_err_has "3E×E ([W_q; W_k; W_v]), GPT-2's c_attn.weight E×3E" "--in-proj names both layouts"

# ---- refused files: exit 3, a message, and nothing run -------------------------------------
# ---- the legacy format (torch < 1.6, _use_new_zipfile_serialization=False): the same tensors --
run ls "$TS/legacy.pt"; expect_code 0 "ls a legacy torch.save file"
if [ "$OUT" = "$("$ATTN" ls "$TS/state_dict.pt")" ]; then pass; else fail "ls legacy.pt differs from ls state_dict.pt: $OUT"; fi
for name in f32 f16 bf16 base base_t slice expand param meta.sub.w; do
    run concat "$TS/legacy.pt:$name" --format npy -o "$T/got.npy"; expect_code 0 "read legacy.pt:$name"
    run concat "$TS/expected.npz:$name" --format npy -o "$T/want.npy"
    if cmp -s "$T/got.npy" "$T/want.npy"; then pass; else fail "legacy.pt:$name differs from numpy's copy"; fi
done
# a pickle of 4.5 million Nones after the legacy header (4.5 MB): refused at the bound on
# values, not after gigabytes (each value costs a few hundred bytes; 20 MB took 7.5 GB)
if [ -z "${ATTN_SANITIZER:-}" ]; then
    { printf '\200\002\212\012\154\374\234\106\371\040\152\250\120\031\056'  # torch's magic number
      printf '\200\002M\351\003.\200\002}.\200\002}'                                  # 1001, {}, then {
      head -c 4500000 /dev/zero | tr '\0' N; printf '.'; } >"$T/nones.pt"
    run ls "$T/nones.pt"; expect_code 3 "4.5 million pickled Nones"
    expect_err_has "more than 4194304 values and memo entries: refused" "the bound on pickled values"
fi
# cut short: inside the last storage's bytes, inside its count, inside the pickles
size=$(stat -c %s "$TS/legacy.pt")
for cut in $((size - 3)) $((size - 60)) 200 20; do
    head -c "$cut" "$TS/legacy.pt" >"$T/cut.pt"
    run ls "$T/cut.pt"; expect_code 3 "legacy.pt cut at $cut bytes"
    expect_err_has "truncated" "legacy.pt cut at $cut bytes: the reason"
done
mkdir -p "$T/cwd"
for case in "system:refused global 'posix.system'" "stack_global:refused global 'posix.system'" \
            "reduce_storage:refused REDUCE of torch.FloatStorage" "inst:refused pickle opcode INST" \
            "unknown_opcode:refused pickle opcode 0xff" "truncated_pickle:truncated pickle" \
            "cycle:a container placed inside itself" "truncated_zip:truncated or damaged zip archive" \
            "legacy_two_dtypes:its storage 'k0' is float32 here and float16 for another tensor"; do
    name=${case%%:*} message=${case#*:}
    for args in "ls $TS/malicious/$name.pt" "softmax $TS/malicious/$name.pt:w"; do
        # shellcheck disable=SC2086
        (cd "$T/cwd" && "$ATTN" $args >"$T/out" 2>"$T/err" </dev/null); CODE=$? ERR=$(cat "$T/err")
        expect_code 3 "$name ($args)"
        expect_err_has "$message" "$name: the message"
    done
done
if [ -e "$T/cwd/attn_pickle_pwned" ] || [ -e attn_pickle_pwned ]; then fail "a malicious pickle ran its payload"; else pass; fi

# a bare .bin that is no checkpoint is read by content, as before; FILE.bin:NAME is a checkpoint
printf '1 2\n3 4\n' > "$T/data.bin"
run softmax "$T/data.bin"; expect_code 0 "a text file named .bin is read as text"
run softmax "$T/data.bin:x"; expect_code 3 "data.bin:x asks for a checkpoint"
expect_err_has "not a model file" "data.bin:x: not a model file"

# ---- not a model file ------------------------------------------------------------------------
printf 'hello, world\n' > "$T/notes.txt"
run ls "$T/notes.txt"; expect_code 3 "ls of a text file"
expect_err_has "not a model file" "a text file is not a model file"
if grep -q "header length" "$T/err"; then fail "the text file's error speaks of a header length"; else pass; fi
cp "$T/notes.txt" "$T/notes.pt"
run ls "$T/notes.pt"; expect_code 3 "ls of a text file named .pt"
expect_err_has "not a model file" "a .pt that is text is not a model file"
cp "$T/notes.txt" "$T/notes.safetensors"
run softmax "$T/notes.safetensors:a"; expect_code 3 "a text file named .safetensors"
expect_err_has "not a model file" "a .safetensors that is text is not a model file"
