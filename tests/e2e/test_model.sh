# attn model: the forward pass of tiny random Hugging Face checkpoints (data/models/tiny/, made by
# data/models/make_tiny.py with a torch implementation of BertModel, GPT2Model and LlamaModel
# written from transformers' modeling code): every layer's and head's attention within 1e-5
# absolute of torch's, the hidden states within 1e-4 relative (atol 1e-5), for bert (float32 and
# float16 weights, "bert." names), gpt2 ("transformer." names), llama (GQA, llama3 rope_scaling;
# yarn in v4 and v5 configs, dynamic beyond max_position_embeddings),
# llama with bfloat16 weights (linear rope_scaling, one K/V head), mistral (float16, sliding
# window 3 < 7 tokens), qwen2 (bfloat16, Q/K/V biases, two shards), qwen3 (q_norm and k_norm,
# head_dim 16 != hidden / heads; bfloat16, and float32 with all four biases and a sliding layer),
# gemma2 (softcap 2, query_pre_attn_scalar 24, window 3 on the even layers, four norms a layer;
# bfloat16 with layer_types, no softcap and biases), gemma (bfloat16, one K/V head), gemma3_text
# (q_norm and k_norm, the sliding layers' own RoPE by sliding_window_pattern; v5's rope_parameters
# per layer type in bfloat16; EmbeddingGemma's bidirectional attention), gemma3 (text_config, the
# language model's weights beside a vision tower's, under both of their names), phi3 (fused
# qkv_proj and gate_up_proj, RoPE on half of each head, a sliding window, longrope past the original
# length; bfloat16 with the older name "su" within it), llama with longrope, llama with
# attention_bias and mlp_bias (o_proj's and the MLP's biases too) and v5's plain rope_parameters,
# starcoder2 (LayerNorm, biases, a window of 3 on every layer, GQA; without biases and window in
# bfloat16; dynamic RoPE past max_position_embeddings), nemotron (LayerNorm by weight + 1, RoPE on
# half of each head, relu2; all biases, a quarter of each head, bfloat16),
# stablelm (LayerNorm, Q/K/V biases, a LayerNorm per head for q and k, RoPE on half of each head;
# the parallel residual, a quarter of each head, dynamic RoPE in bfloat16), cohere (LayerNorm
# without bias, RoPE on pairs (2i, 2i + 1), q_norm and k_norm of each head's own weight, all four
# biases; head_dim of its own and CohereConfig's rope_theta in float16), cohere2 (three sliding
# layers with RoPE and a full one without; layer_types, float16), olmo (LayerNorm without
# weight or bias, clip_qkv, all four biases; head_dim of its own, linear RoPE in bfloat16), gptj
# ("transformer." names, RoPE on pairs in half of each head, the attention and the MLP side by
# side; every dim turned, the attribute_map's names, token types, float16), gpt_bigcode (one K/V
# head in the fused c_attn; q, k, v per head, unscaled, in float16), gpt_neo (unscaled scores, a
# global and a local layer of window 3; local, global, local of window 2 with token types in
# float16), opt (opt-125m's pre-LN layers and learned positions; opt-350m's post-LN without biases
# in float16; word_embed_proj_dim's projections, attentions only), falcon (falcon-7b's multi-query
# fused projection and parallel layer; new_decoder_architecture's K/V groups with ln_attn and
# ln_mlp and dynamic RoPE in bfloat16; q | k | v per head, biases and the serial layer in float16;
# Falcon 2's one norm),
# gpt_neox (Pythia's shape: RoPE on a quarter of each head, the parallel residual, float16; and
# the serial residual without attention biases),
# electra ("electra." names, embeddings 16 wide projected to 32, token types; embeddings as wide
# as the layers, no projection, float16),
# distilbert ("distilbert." names, gelu; the base model's names, DistilBertConfig's attribute_map
# aliases in config.json, gelu_new, float16), albert ("albert." names, embeddings 16 wide mapped to
# 32, 3 layers of one shared group, token types; 4 layers over 2 groups in float16),
# bloom (ALiBi with 6 heads, "transformer." names; the LayerNorms' outputs as residuals, n_embed,
# float16; pretraining_tp with slow_but_exact: the output projections without biases),
# mpt ("transformer." names, ALiBi with 4 heads; 6 heads, clip_qkv and softmax_scale in float16),
# codegen (GPT-J's layer with the fused qkv_proj in 4 chunks: 4 heads; 8 heads, token types, float16),
# persimmon (qk_layernorm, half of each head turned, relu2; no qk_layernorm, linear rope_scaling, bfloat16),
# olmo2 (the norms after the attention and the MLP, q_norm and k_norm over all heads, GQA; with
# attention_bias and linear rope_scaling in bfloat16), olmo3 (three sliding layers and a full one),
# smollm3 (a NoPE layer that slides, biases, bfloat16; no_rope_layers given), glm (RoPE on pairs of
# half of each head, Q/K/V biases, the fused gate_up_proj), glm4 (every dim turned, its post norms,
# bfloat16),
# granite (embedding, attention and residual multipliers; attention_bias and mlp_bias in bfloat16),
# mixtral (4 experts, 2 per token; 3 experts, 1 per token, rope_theta 1e6 by default and a window
# in bfloat16),
# qwen2_moe (4 experts, 2 per token not renormalised, the gated shared expert, a dense layer by
# mlp_only_layers), qwen3_moe (q_norm and k_norm, norm_topk_prob, decoder_sparse_step 2; bfloat16),
# phi (RoPE on half of each head, the attention and the MLP side by side; qk_layernorm, GQA and
# dynamic RoPE past max_position_embeddings in float16),
# bert_bin (a torch.save pytorch_model.bin) and bert_uncased (bert-base-uncased's vocab.txt, the
# tutorial's sentence pair given as --text/--text-pair), roberta ("roberta." names, position ids
# from pad_token_id + 1 over padded rows, a ByteLevel BPE tokenizer.json; as xlm-roberta too);
# and clear errors.

ALLCLOSE=$(dirname "$ATTN")/allclose
TINY=$ROOT/data/models/tiny

# compare WHAT GOT WANT ARGS...: allclose with ARGS; a failure names WHAT.
compare() {
    local msg what=$1 got=$2 want=$3; shift 3
    if [ ! -f "$got" ]; then fail "$what: attn wrote no $(basename "$got")"; return; fi
    if msg=$("$ALLCLOSE" "$got" "$want" "$@" 2>&1); then pass; else fail "$what differs from torch: $msg"; fi
}

# with_header SRC OUT SED: OUT is the safetensors file SRC with its JSON header edited by the sed
# expression SED (the data as it is; the header's length written anew).
with_header() {
    local n header LC_ALL=C
    n=$(od -An -tu8 -N8 "$1" | tr -d ' ')
    header=$(head -c $((8 + n)) "$1" | tail -c "$n" | sed "$3")
    {
        # shellcheck disable=SC2059 # the length's 8 little-endian bytes, as printf escapes
        printf "$(printf '%016x' "${#header}" | sed -E 's/(..)(..)(..)(..)(..)(..)(..)(..)/\\x\8\\x\7\\x\6\\x\5\\x\4\\x\3\\x\2\\x\1/')"
        printf '%s' "$header"
        tail -c +$((9 + n)) "$1"
    } >"$2"
}

# edited_config NAME MODEL SED: $T/NAME, the tiny MODEL's weights (a link) under its config.json
# edited by the sed script SED (made afresh).
edited_config() {
    rm -rf "${T:?}/$1" && mkdir -p "$T/$1" && ln -sf "$TINY/$2/model.safetensors" "$T/$1/"
    sed "$3" "$TINY/$2/config.json" >"$T/$1/config.json"
}

if [ ! -x "$ALLCLOSE" ]; then
    fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
else
    for dir in "$TINY"/*/; do
        m=$(basename "$dir")
        args=("$dir" --ids "$dir/ids.txt" --show attentions,hidden-states --format npy -o "$T/$m")
        [ -f "$dir/token_types.txt" ] && args+=(--token-types "$dir/token_types.txt")
        rm -rf "${T:?}/$m"
        run model "${args[@]}"
        if [ "$CODE" -ne 0 ]; then fail "$m: exit $CODE: $ERR"; continue; fi
        compare "$m attentions" "$T/$m/attentions.npy" "$dir/attentions.npy" --rtol 0 --atol 1e-5
        compare "$m hidden states" "$T/$m/hidden-states.npy" "$dir/hidden_states.npy" --rtol 1e-4 --atol 1e-5
    done

    # A pytorch_model.bin of views (data/models/torch_save/views: tiny bert's weights as rows of a
    # wider storage, at an offset, transposed, as stride-2 vectors, two in one storage, and an all-NaN
    # pooler weight the pass does not use): the row-major
    # ones used where they lie, the others copied; the same outputs as tiny bert's safetensors, bit for bit.
    rm -rf "$T/views"
    run model "$ROOT/data/models/torch_save/views" --ids "$TINY/bert/ids.txt" --token-types "$TINY/bert/token_types.txt" \
        --show attentions,hidden-states --format npy -o "$T/views"
    expect_code 0 "model on a pytorch_model.bin of views"
    for f in attentions hidden-states; do
        if cmp -s "$T/views/$f.npy" "$T/bert/$f.npy"; then pass; else fail "model on views: $f.npy differs from tiny bert's"; fi
    done
    # Its unused pooler weight is all NaN (above: no matter); views_nan has a NaN in layer 0's key
    # weight, a copied view: named when the pass uses it.
    run model "$ROOT/data/models/torch_save/views_nan" --ids 1,2,3 --format csv
    expect_code 3 "a NaN in a copied .bin weight"
    expect_err_has "tensor 'encoder.layer.0.attention.self.key.weight': row 1, column 6 (0-based): non-finite value 'nan'" \
        "the NaN in the copied .bin weight named"

    # A safetensors header one space longer (the format pads with spaces) puts every float16
    # weight at an odd address: widened into memory, the same bits out (was: read through
    # misaligned uint16_t pointers).
    f16=$TINY/bert_f16/model.safetensors
    mkdir -p "$T/odd" && cp "$TINY/bert_f16/config.json" "$T/odd/"
    with_header "$f16" "$T/odd/model.safetensors" 's/$/ /'
    for dir in "$TINY/bert_f16" "$T/odd"; do
        rm -rf "$T/odd_$(basename "$dir")"
        run model "$dir" --ids "$TINY/bert_f16/ids.txt" --token-types "$TINY/bert_f16/token_types.txt" \
            --show attentions,hidden-states --format npy -o "$T/odd_$(basename "$dir")"
        expect_code 0 "model on $(basename "$dir")"
    done
    if [ "$(($(stat -c %s "$T/odd/model.safetensors") - $(stat -c %s "$f16")))" = 1 ] &&
        cmp -s "$T/odd_odd/attentions.npy" "$T/odd_bert_f16/attentions.npy" &&
        cmp -s "$T/odd_odd/hidden-states.npy" "$T/odd_bert_f16/hidden-states.npy"; then pass
    else fail "a safetensors header of odd length: not the outputs of the aligned file"; fi

    # F64 weights beyond float32's range become inf, as torch's cast makes them: refused where the
    # pass uses them (model.norm.weight), not in a tensor it leaves unused (an extra lm_head row).
    f64=$TINY/qwen3_f64/model.safetensors
    n=$(od -An -tu8 -N8 "$f64" | tr -d ' ')
    L=$(($(stat -c %s "$f64") - 8 - n))  # the data's length: the new tensors follow it
    huge='\x9c\x75\x00\x88\x3c\xe4\x37\x7e'  # 1e300, little-endian
    for case in unused used; do
        mkdir -p "$T/f64_$case" && cp "$TINY/qwen3_f64/config.json" "$T/f64_$case/"
        if [ $case = unused ]; then
            with_header "$f64" "$T/f64_$case/model.safetensors" \
                "s/^{/{\"lm_head.extra\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[$L,$((L + 8))]},/"
            # shellcheck disable=SC2059 # the bytes as printf escapes
            printf "$huge" >>"$T/f64_$case/model.safetensors"
        else  # element 3 of model.norm.weight overwritten in place
            cp "$f64" "$T/f64_$case/model.safetensors"
            start=$(head -c $((8 + n)) "$f64" | grep -ao '"model.norm.weight":{[^}]*}' | sed -E 's/.*"data_offsets":\[([0-9]+),.*/\1/')
            # shellcheck disable=SC2059 # the bytes as printf escapes
            printf "$huge" | dd of="$T/f64_$case/model.safetensors" bs=1 seek=$((8 + n + start + 3 * 8)) conv=notrunc status=none
        fi
        run model "$T/f64_$case" --ids "$TINY/qwen3_f64/ids.txt" --format csv
    done
    run model "$T/f64_unused" --ids "$TINY/qwen3_f64/ids.txt" --format csv
    expect_code 0 "an F64 value beyond float32 in an unused tensor"
    run model "$T/f64_used" --ids "$TINY/qwen3_f64/ids.txt" --format csv
    expect_code 3 "an F64 value beyond float32 in model.norm.weight"
    expect_err_has "tensor 'model.norm.weight': element 3 (0-based): 1e+300 in the file overflows float32" \
        "the weight beyond float32 named where used, with its value"

    # q_proj and k_proj of 1e20: the scores of layer 0 overflow float32 (inf − inf: NaN, as in
    # torch). The row is refused on every path, one token or five, attentions or hidden states
    # alone (a NaN score was taken for a fully masked row: weights 0, exit 0).
    src=$TINY/llama/model.safetensors
    n=$(od -An -tu8 -N8 "$src" | tr -d ' ')
    mkdir -p "$T/overflow" && cp "$TINY/llama/config.json" "$T/overflow/" && cp "$src" "$T/overflow/model.safetensors"
    for t in q_proj k_proj; do
        range=$(head -c $((8 + n)) "$src" | grep -ao "\"model.layers.0.self_attn.$t.weight\":{[^}]*}" |
            sed -E 's/.*"data_offsets":\[([0-9]+),([0-9]+)\].*/\1 \2/')
        read -r a b <<<"$range"
        # shellcheck disable=SC2046 # one '%.0s' per float: (b − a) / 4 copies of 1e20, little-endian
        printf '\xec\x78\xad\x60%.0s' $(seq $(((b - a) / 4))) |
            dd of="$T/overflow/model.safetensors" bs=1 seek=$((8 + n + a)) conv=notrunc status=none
    done
    for args in "--ids 1" "--ids 1,2,3,4,5" "--ids 1,2,3,4,5 --show hidden-states" "--ids 1,2,3,4,5 --layer 1"; do
        # shellcheck disable=SC2086 # the options as words
        run model "$T/overflow" $args --format csv
        expect_code 1 "q and k of 1e20 ($args)"
        expect_err_has "holds NaN" "q and k of 1e20 ($args): the NaN named"
    done

    # A vector stored as (1, n) is refused, as transformers' loader refuses it (it was taken).
    mkdir -p "$T/row_vector" && cp "$TINY/llama/config.json" "$T/row_vector/"
    with_header "$TINY/llama/model.safetensors" "$T/row_vector/model.safetensors" \
        's/"model.norm.weight":{"dtype":"F32","shape":\[32\]/"model.norm.weight":{"dtype":"F32","shape":[1,32]/'
    run model "$T/row_vector" --ids 1,2,3 --format csv
    expect_code 3 "a (1, 32) norm weight"
    expect_err_has "tensor 'model.norm.weight' has shape (1, 32), config.json needs (32,)" "the (1, n) vector named"

    # Layers past config.json's count are named in a note (they went unnoticed; transformers warns
    # of unused weights): the tiny llama's 2 layers under a config of 1.
    edited_config one_layer llama 's/"num_hidden_layers": 2/"num_hidden_layers": 1/'
    run model "$T/one_layer" --ids 1,2,3 --format csv
    expect_code 0 "llama weights of 2 layers under a config of 1"
    expect_err_has "attn: note: the weights hold a layer 1 (layers.1.*) but config.json has 1 layer: the layers past them are not used" \
        "the unused layer named"
    run model "$TINY/llama" --ids 1,2,3 --format csv
    if [ -z "$ERR" ]; then pass; else fail "a model of its config's layers printed on stderr: $ERR"; fi

    # Tensors of the layers run that the model config.json describes leaves out are named in a
    # note, as transformers warns of them ("Some weights ... were not used"): llama_biases' 14
    # biases under a config without attention_bias and mlp_bias (7 with --layer 0: the layers
    # run). The buffers checkpoints carry (a rotary inv_freq, masked_bias, a 4-D causal-mask
    # bias) and tensors outside the layers (lm_head) are not named.
    edited_config no_bias llama_biases '/"attention_bias"/d; s/"mlp_bias": true/"mlp_bias": false/'
    run model "$T/no_bias" --ids 1,2,3 --format csv
    expect_code 0 "llama_biases under a config without biases"
    expect_err_has "attn: note: 14 tensors of the layers run are not in the model config.json describes (llama) and are left out, as transformers leaves them out with a warning: model.layers.0.mlp.down_proj.bias, model.layers.0.mlp.gate_proj.bias, model.layers.0.mlp.up_proj.bias, model.layers.0.self_attn.k_proj.bias, model.layers.0.self_attn.o_proj.bias, model.layers.0.self_attn.q_proj.bias and 8 more. A model_type" \
        "the biases a config leaves out named"
    run model "$T/no_bias" --ids 1,2,3 --layer 0 --format csv
    expect_err_has "attn: note: 7 tensors of the layers run" "--layer 0: the unused tensors of layer 0 only"
    src=$TINY/llama/model.safetensors
    n=$(od -An -tu8 -N8 "$src" | tr -d ' ')
    L=$(($(stat -c %s "$src") - 8 - n))  # the data's length: the new tensors follow it
    mkdir -p "$T/buffers" && cp "$TINY/llama/config.json" "$T/buffers/"
    with_header "$src" "$T/buffers/model.safetensors" \
        "s/^{/{\"model.layers.0.self_attn.rotary_emb.inv_freq\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[$L,$((L + 4))]},\"model.layers.1.self_attn.masked_bias\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[$((L + 4)),$((L + 8))]},\"model.layers.1.self_attn.bias\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1],\"data_offsets\":[$((L + 8)),$((L + 12))]},\"lm_head.weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[$((L + 12)),$((L + 16))]},/"
    printf '\x00\x00\x80\x3f%.0s' 1 2 3 4 >>"$T/buffers/model.safetensors"
    run model "$T/buffers" --ids 1,2,3 --format csv
    expect_code 0 "llama with inv_freq, masked_bias, a 4-D bias and lm_head"
    if [ -z "$ERR" ]; then pass; else fail "buffers and lm_head were named as unused: $ERR"; fi
    with_header "$src" "$T/buffers/model.safetensors" \
        "s/^{/{\"model.layers.1.self_attn.bias\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[$L,$((L + 4))]},/"
    printf '\x00\x00\x80\x3f' >>"$T/buffers/model.safetensors"
    run model "$T/buffers" --ids 1,2,3 --format csv
    expect_err_has "attn: note: 1 tensor of the layers run is not in the model config.json describes (llama) and is left out, as transformers leaves it out with a warning: model.layers.1.self_attn.bias. A model_type" "a 1-D self_attn.bias is not a mask buffer: named"

    # --layer and --head pick outputs.attentions[l][:, h], on any arch and thread count.
    for a in scalar auto; do
        for th in 1 3; do
            rm -f "$T/l1h2.npy"
            run model "$TINY/llama" --ids "$TINY/llama/ids.txt" --layer 1 --head 2 --format npy -o "$T/l1h2.npy" \
                --threads $th --arch $a
            expect_code 0 "llama --layer 1 --head 2 (--arch $a, $th threads)"
            compare "llama --layer 1 --head 2 (--arch $a, $th threads)" "$T/l1h2.npy" "$TINY/llama/attentions_layer1_head2.npy" \
                --rtol 0 --atol 1e-5
        done
    done
    # --layer L runs the other layers as a full run does (weights kept in scratch: the same kernels),
    # so layer L's weights and the hidden states are the full run's bit for bit.
    for m in llama gemma2 bloom; do
        rm -rf "$T/full_$m" "$T/lh_$m"
        run model "$TINY/$m" --ids "$TINY/$m/ids.txt" --show attentions,hidden-states --format npy -o "$T/full_$m"
        expect_code 0 "$m: the full run"
        run model "$TINY/$m" --ids "$TINY/$m/ids.txt" --layer 0 --show attentions,hidden-states --format npy -o "$T/lh_$m"
        expect_code 0 "$m: --layer 0 with the hidden states"
        if cmp -s "$T/full_$m/hidden-states.npy" "$T/lh_$m/hidden-states.npy"; then pass; else
            fail "$m --layer 0: the hidden states differ from the full run's"
        fi
        for L in 0 1; do
            run model "$TINY/$m" --ids "$TINY/$m/ids.txt" --layer $L --format npy -o "$T/l_$m.npy"
            expect_code 0 "$m --layer $L"
            # an npy's data: its size less the header (bytes 8-9, little-endian, + 10); layer L is the
            # L-th of the full run's (layers, B, H, T, T) data
            data() { echo $(($(stat -c %s "$1") - $(od -An -tu2 -j8 -N2 "$1" | tr -d ' ') - 10)); }
            f=$T/l_$m.npy full=$T/full_$m/attentions.npy
            n=$(data "$f") layers=$(($(data "$full") / $(data "$f")))
            if [ "$(tail -c $(((layers - L) * n)) "$full" | head -c "$n" | od -An -tx1 | md5sum)" = \
                "$(tail -c "$n" "$f" | od -An -tx1 | md5sum)" ]; then pass; else
                fail "$m --layer $L: the weights differ from the full run's layer $L"
            fi
        done
    done
    run model "$TINY/llama" --ids "$TINY/llama/ids.txt" --layer 1 --format json
    expect_out_has '"attentions"' "--layer 1 in json"

    # MistralAttention and MistralMLP have no biases: "attention_bias" and "mlp_bias" (Llama's
    # keys) change nothing, and no bias tensor is looked for.
    edited_config mistral_bias mistral_f16 's/"sliding_window": 3/"sliding_window": 3, "attention_bias": true, "mlp_bias": true/'
    rm -rf "$T/mb"
    run model "$T/mistral_bias" --ids "$TINY/mistral_f16/ids.txt" --show attentions,hidden-states --format npy -o "$T/mb"
    if [ "$CODE" -ne 0 ] || ! grep -q attention_bias "$T/mistral_bias/config.json"; then fail "mistral with attention_bias: exit $CODE: $ERR"
    else
        compare "mistral with attention_bias: attentions" "$T/mb/attentions.npy" "$TINY/mistral_f16/attentions.npy" --rtol 0 --atol 1e-5
        compare "mistral with attention_bias: hidden states" "$T/mb/hidden-states.npy" "$TINY/mistral_f16/hidden_states.npy" --rtol 1e-4 --atol 1e-5
    fi

    # Qwen3: a q_norm missing is named; a k_norm of the wrong shape too; head_dim left out is
    # Qwen3Config's 128 (not hidden / heads), which the projections do not fit.
    source=$TINY/qwen3_bf16/model.safetensors
    for spec in "q_norm|s/\"model.layers.1.self_attn.q_norm.weight\"/\"model.layers.1.self_attn.q_nrom.weight\"/|have no tensor 'model.layers.1.self_attn.q_norm.weight'" \
                "k_norm|s/\"model.layers.0.self_attn.k_norm.weight\":{\"dtype\":\"BF16\",\"shape\":\[16\]/\"model.layers.0.self_attn.k_norm.weight\":{\"dtype\":\"BF16\",\"shape\":[2,8]/|tensor 'model.layers.0.self_attn.k_norm.weight' has shape (2, 8), config.json needs (16,)"; do
        IFS='|' read -r what edit message <<<"$spec"
        rm -rf "$T/qwen3_$what" && mkdir -p "$T/qwen3_$what" && cp "$TINY/qwen3_bf16/config.json" "$T/qwen3_$what/"
        with_header "$source" "$T/qwen3_$what/model.safetensors" "$edit"
        run model "$T/qwen3_$what" --ids 1,2,3 --format csv
        expect_code 3 "qwen3 with its $what edited"
        expect_err_has "$message" "qwen3: the $what named"
    done
    mkdir -p "$T/qwen3_no_head_dim" && ln -sf "$source" "$T/qwen3_no_head_dim/"
    grep -v '"head_dim"' "$TINY/qwen3_bf16/config.json" >"$T/qwen3_no_head_dim/config.json"
    run model "$T/qwen3_no_head_dim" --ids 1,2,3 --format csv
    expect_code 3 "qwen3 without head_dim"
    expect_err_has "tensor 'model.layers.0.self_attn.q_proj.weight' has shape (64, 32), config.json needs (512, 32)" \
        "qwen3 without head_dim: Qwen3Config's 128"

    # Gemma 2: a post_feedforward_layernorm missing is named; a null sliding_window with
    # Gemma2Config's default layer_types (layer 0 slides) is refused.
    rm -rf "$T/gemma2_no_ffn_norm" && mkdir -p "$T/gemma2_no_ffn_norm" && cp "$TINY/gemma2/config.json" "$T/gemma2_no_ffn_norm/"
    with_header "$TINY/gemma2/model.safetensors" "$T/gemma2_no_ffn_norm/model.safetensors" \
        's/"model.layers.2.post_feedforward_layernorm.weight"/"model.layers.2.post_feedforward_layernrom.weight"/'
    run model "$T/gemma2_no_ffn_norm" --ids 1,2,3 --format csv
    expect_code 3 "gemma2 without a post_feedforward_layernorm"
    expect_err_has "have no tensor 'model.layers.2.post_feedforward_layernorm.weight'" "gemma2: the missing norm named"
    # Gemma 3 (Gemma3ForConditionalGeneration): the language model named as transformers v4.52 on
    # saves it, "model.language_model.", gives the same bits as Google's "language_model.model.".
    rm -rf "$T/gemma3_renamed" "$T/gemma3_renamed_out" && mkdir -p "$T/gemma3_renamed"
    cp "$TINY/gemma3_multimodal/config.json" "$T/gemma3_renamed/"
    with_header "$TINY/gemma3_multimodal/model.safetensors" "$T/gemma3_renamed/model.safetensors" \
        's/"language_model\.model\./"model.language_model./g'
    run model "$T/gemma3_renamed" --ids "$TINY/gemma3_multimodal/ids.txt" --show attentions,hidden-states --format npy \
        -o "$T/gemma3_renamed_out"
    expect_code 0 "gemma3 with model.language_model. names"
    for f in attentions hidden-states; do
        if cmp -s "$T/gemma3_renamed_out/$f.npy" "$T/gemma3_multimodal/$f.npy"; then pass; else
            fail "gemma3 with model.language_model. names: $f.npy differs from language_model.model.'s"
        fi
    done
    # A Gemma 3 folder whose language model is missing names the names it looks for.
    with_header "$TINY/gemma3_multimodal/model.safetensors" "$T/gemma3_renamed/model.safetensors" \
        's/"language_model\.model\.embed_tokens/"language_model.model.embed_token/'
    run model "$T/gemma3_renamed" --ids 1,2,3 --format csv
    expect_code 3 "gemma3 without its embeddings"
    expect_err_has "have no tensor 'language_model.model.embed_tokens.weight' (nor 'model.language_model.embed_tokens.weight', nor 'language_model.embed_tokens.weight')" \
        "gemma3 without its embeddings: the names it looks for"
    # config.json's faults, each named with its key (from an audit): integer keys written as floats
    # (transformers' TypeError), numbers that transformers' float32 turns into NaN or 0, a
    # layer_types of the wrong length, a RoBERTa decoder.
    for spec in "gemma2|s/\"sliding_window\": 3/\"sliding_window\": null/|\"sliding_window\" is null, but layer 0 slides" \
        "qwen3_bf16|s/\"head_dim\": 16/\"head_dim\": 16.0/|\"head_dim\": json: expected an integer, found 16.0" \
        "qwen3_bf16|s/\"num_hidden_layers\": 2/\"num_hidden_layers\": 2.0/|\"num_hidden_layers\": json: expected an integer, found 2.0" \
        "qwen3_bias_window|s/\"sliding_window\": 3/\"sliding_window\": 9223372036854775807/|\"sliding_window\": json: 9223372036854775807 is out of range" \
        "gemma2|s/\"query_pre_attn_scalar\": 24/\"query_pre_attn_scalar\": 1e300/|\"query_pre_attn_scalar\" 1e+300 makes the scale 1e-150 (query_pre_attn_scalar ** -0.5), outside float32's range" \
        "gemma2|s/\"query_pre_attn_scalar\": 24/\"query_pre_attn_scalar\": 1e-300/|makes the scale 1e+150" \
        "gemma2|s/\"attn_logit_softcapping\": 2.0/\"attn_logit_softcapping\": 1e-300/|\"attn_logit_softcapping\" is 1e-300: outside float32's range" \
        "gemma2|s/\"rope_theta\": 10000.0/\"rope_theta\": 1e-300/|config.json: \"rope_theta\" is 1e-300: outside float32's range" \
        "llama_bf16|s/\"rope_theta\": 500.0/\"rope_theta\": 1e308/|config.json: \"rope_theta\" is 1e+308: outside float32's range" \
        "llama_bf16|s/\"factor\": 2.0/\"factor\": 1e-39/|config.json: \"rope_scaling\": linear factor 1e-39 makes RoPE's inverse frequency 0 inf in float32" \
        "llama_dynamic|s/\"factor\": 2.0/\"factor\": 1e30/|\"rope_scaling\": dynamic factor 1e+30 over 3 tokens makes RoPE's inverse frequency 1 inf in float32 (with a base of 0)" \
        "llama_yarn|s/\"factor\": 4.0/\"factor\": 1e-39/|\"rope_scaling\": yarn factor 1e-39 makes RoPE's inverse frequency" \
        "gemma3_text|s/\"rope_local_base_freq\": 20.0/\"rope_local_base_freq\": 1e-300/|config.json: \"rope_local_base_freq\" is 1e-300: outside float32's range" \
        "gemma3_v5_bf16|s/\"factor\": 4.0/\"factor\": 1e-39/|config.json: \"rope_parameters\": \"full_attention\": linear factor 1e-39 makes RoPE's inverse frequency 0 inf in float32" \
        "phi3|s/^      5\.0$/      5.0, 1.0/|config.json: longrope's \"long_factor\" has 3 numbers, expected 2: one per frequency of the 4 dims RoPE turns" \
        "phi3|s/\"partial_rotary_factor\": 0.5/\"partial_rotary_factor\": 0.375/|\"partial_rotary_factor\" 0.375 gives int(8 * 0.375) = 3 rotary dims of each head: attn runs an even number from 2 to head_dim" \
        "gemma2|s/\"sliding_window\": 3/\"sliding_window\": 3, \"layer_types\": [\"sliding_attention\", \"full_attention\"]/|\"layer_types\" has 2 entries for 3 layers (num_hidden_layers)" \
        "roberta|s/\"model_type\"/\"is_decoder\": true, \"model_type\"/|\"is_decoder\": a RoBERTa decoder is not supported (attn runs RobertaModel's encoder)"; do
        IFS='|' read -r m edit message <<<"$spec"
        rm -rf "$T/${m}_edited" && mkdir -p "$T/${m}_edited" && ln -sf "$TINY/$m/model.safetensors" "$T/${m}_edited/"
        sed "$edit" "$TINY/$m/config.json" >"$T/${m}_edited/config.json"
        run model "$T/${m}_edited" --ids 1,2,3 --format csv
        expect_code 3 "$m with config.json edited ($edit)"
        expect_err_has "$message" "$m: the config's fault named"
    done
    # Dynamic RoPE's base grows past max_position_embeddings (5): 3e38 is fine over 5 tokens, inf over 7.
    edited_config llama_dynamic_edited llama_dynamic 's/"rope_theta": 10000.0/"rope_theta": 3e38/'
    run model "$T/llama_dynamic_edited" --ids 1,2,3,4,5 --format csv
    expect_code 0 "dynamic RoPE with rope_theta 3e38 over max_position_embeddings tokens"
    run model "$T/llama_dynamic_edited" --ids 1,2,3,4,5,6,7 --format csv
    expect_code 3 "dynamic RoPE with rope_theta 3e38 past max_position_embeddings"
    expect_err_has "config.json: \"rope_scaling\": dynamic factor 2 over 7 tokens makes RoPE's inverse frequency 1 0 in float32 (with a base of inf)" \
        "dynamic RoPE's base beyond float32 named"
    # A NUL byte in config.json: JSON is text (it said "neither text nor .npy")
    edited_config nul qwen3_bf16 's/"qwen3"/"qwen\x003"/'
    run model "$T/nul" --ids 1,2,3 --format csv
    expect_code 3 "a NUL byte in config.json"
    if [[ $ERR == *"nul/config.json:2:22: a NUL byte: binary data, not text"* && $ERR != *".npy"* ]]; then pass
    else fail "a NUL byte in config.json: $ERR"; fi
    # The header's __metadata__ twice is no tensor's name; the token embeddings under no prefix
    # attn knows: both names given.
    rm -rf "$T/header" && mkdir -p "$T/header" && cp "$TINY/llama/config.json" "$T/header/"
    with_header "$TINY/llama/model.safetensors" "$T/header/model.safetensors" 's/^{/{"__metadata__":{},/'
    run model "$T/header" --ids 1,2,3 --format csv
    expect_code 3 "a safetensors header with __metadata__ twice"
    expect_err_has "__metadata__ appears twice in the header" "__metadata__ twice named as the header's"
    with_header "$TINY/llama/model.safetensors" "$T/header/model.safetensors" 's/embed_tokens/embed_tokenz/'
    run model "$T/header" --ids 1,2,3 --format csv
    expect_code 3 "no token embeddings under either name"
    expect_err_has "have no tensor 'embed_tokens.weight' (nor 'model.embed_tokens.weight')" "the token embeddings' two names given"
    # A pytorch_model.bin that saved a list, or an empty dict: no state_dict (it said: no tensor 'embed_tokens.weight')
    if command -v python3 >/dev/null; then
        for saved in list empty; do
            rm -rf "$T/bin_$saved" && mkdir -p "$T/bin_$saved" && cp "$TINY/llama/config.json" "$T/bin_$saved/"
            python3 -c 'import pickle, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z: z.writestr("archive/data.pkl", pickle.dumps([1] if sys.argv[2] == "list" else {}, 2))' \
                "$T/bin_$saved/pytorch_model.bin" $saved
            run model "$T/bin_$saved" --ids 1,2,3 --format csv
            expect_code 3 "a pytorch_model.bin of $saved"
        done
        expect_err_has "pytorch_model.bin: the state_dict is empty (no tensor)" "an empty state_dict named"
        run model "$T/bin_list" --ids 1,2,3 --format csv
        expect_err_has "pytorch_model.bin: data.pkl holds a list, not a state_dict (a dict of tensors)" "a saved list named"
    fi
    # Gemma: hidden_act runs (transformers from v4.48); where older versions' hidden_activation
    # would differ, a note (Google's configs: "gelu" and "gelu_pytorch_tanh").
    edited_config gemma_act gemma_bf16 's/"hidden_act": "gelu_pytorch_tanh"/"hidden_act": "gelu"/'
    run model "$T/gemma_act" --ids 1,2,3 --format csv
    expect_code 0 "gemma with hidden_act gelu and hidden_activation gelu_pytorch_tanh"
    expect_err_has 'attn: note: the MLP runs "hidden_act" "gelu", as transformers does from v4.48; versions before it ran "hidden_activation" "gelu_pytorch_tanh"' \
        "gemma: the activations' note"
    # Gemma's hidden_activation is unread now: a value attn does not know gets no note and no error.
    sed 's/"hidden_activation": "gelu_pytorch_tanh"/"hidden_activation": "bogus"/' "$TINY/gemma_bf16/config.json" >"$T/gemma_act/config.json"
    run model "$T/gemma_act" --ids 1,2,3 --format csv
    expect_code 0 "gemma with an unknown hidden_activation"
    if [ -z "$ERR" ]; then pass; else fail "gemma with an unknown hidden_activation: stderr $ERR"; fi

    # the same bits for 1, 2 and 3 threads (rows of the GEMMs, norms and heads split over threads)
    for m in bert_f16 qwen2_bf16; do
        for th in 1 2 3; do
            rm -f "$T/th$th.npz"
            run model "$TINY/$m" --ids "$TINY/$m/ids.txt" --show attentions,hidden-states --format npz \
                -o "$T/th$th.npz" --threads $th
        done
        if cmp -s "$T/th1.npz" "$T/th2.npz" && cmp -s "$T/th1.npz" "$T/th3.npz"; then pass
        else fail "$m: threads 1, 2, 3 give different bits"; fi
    done

    # --text/--text-pair through the folder's tokenizer: the ids and token types of --ids (checked
    # against @huggingface/tokenizers by test_tokenize.sh), the same bits, and torch's attentions
    BU=$TINY/bert_uncased
    rm -f "$T/text.npy" "$T/ids.npy"
    run model "$BU" --text "time flies like an arrow" --text-pair "fruit flies like a banana" --format npy -o "$T/text.npy"
    expect_code 0 "--text --text-pair"
    compare "bert_uncased --text --text-pair attentions" "$T/text.npy" "$BU/attentions.npy" --rtol 0 --atol 1e-5
    run model "$BU" --ids "$BU/ids.txt" --token-types "$BU/token_types.txt" --format npy -o "$T/ids.npy"
    if cmp -s "$T/text.npy" "$T/ids.npy"; then pass; else fail "--text --text-pair and --ids --token-types differ"; fi
    run model "$BU" --text "time flies like an arrow" --text-pair "fruit flies like a banana" --show tokens --format csv
    expect_out_has "[CLS],time,flies,like,an,arrow,[SEP],fruit,flies,like,a,banana,[SEP]" "--show tokens: token strings"
    expect_out_has "101,2051,10029,2066,2019,8612,102,5909,10029,2066,1037,15212,102" "--show tokens: ids"
    run model "$BU" --text "Time flies." --show tokens,attentions --layer 1 --format csv
    expect_out_has ",time,flies,.,[SEP]" "tokens label the attentions"
    # the page: the tokens as labels, sentence B from the pair's first token (not only [SEP] labels)
    run model "$BU" --text "time flies like an arrow" --text-pair "fruit flies like a banana" --layer 1 --html "$T/pair.html"
    expect_code 0 "--html of a pair"
    if grep -q '"sentB":7' "$T/pair.html" && grep -q 'banana' "$T/pair.html"; then pass
    else fail "the page of a pair has no sentence B at token 7 or no token labels"; fi

    # RoBERTa (tiny/roberta: "roberta." names, no pooler, pad_token_id 1, the rows padded on the
    # right, on the left and in the middle: checked in the loop above): XLM-RoBERTa is the same
    # model; --text through its ByteLevel BPE tokenizer.json (<s> A </s>, whole-word merges) gives
    # the first row's ids and torch's attentions for that row alone; no token types given to it.
    R=$TINY/roberta
    mkdir -p "$T/xlmr" && ln -sf "$R/model.safetensors" "$T/xlmr/"
    sed 's/"model_type": "roberta"/"model_type": "xlm-roberta"/' "$R/config.json" >"$T/xlmr/config.json"
    rm -f "$T/xlmr.npy"
    run model "$T/xlmr" --ids "$R/ids.txt" --format npy -o "$T/xlmr.npy"
    if [ "$CODE" -ne 0 ] || ! grep -q '"xlm-roberta"' "$T/xlmr/config.json"; then fail "xlm-roberta: exit $CODE: $ERR"
    else compare "xlm-roberta attentions" "$T/xlmr.npy" "$R/attentions.npy" --rtol 0 --atol 1e-5; fi
    run model "$R" --text "time flies like an arrow" --show tokens --format csv
    expect_out_has "<s>,time,Ġflies,Ġlike,Ġan,Ġarrow,</s>" "roberta --text: the tokens"
    expect_out_has "0,20,25,29,31,35,2" "roberta --text: the ids (the first row of ids.txt)"
    if [ "$(head -1 "$R/ids.txt")" = "0,20,25,29,31,35,2" ]; then pass; else fail "roberta ids.txt's first row: $(head -1 "$R/ids.txt")"; fi
    rm -f "$T/rtext.npy"
    run model "$R" --text "time flies like an arrow" --format npy -o "$T/rtext.npy"
    expect_code 0 "roberta --text"
    compare "roberta --text attentions" "$T/rtext.npy" "$R/text_attentions.npy" --rtol 0 --atol 1e-5
    run model "$R" --text "time flies" --text-pair "an arrow" --show tokens --format csv  # type_vocab_size 1: none given
    expect_code 0 "roberta --text --text-pair"
    expect_out_has "<s>,time,Ġflies,</s>,</s>,a,n,Ġarrow,</s>" "roberta pair: <s> A </s></s> B </s>"
    # Positions count the tokens that are not pad_token_id from 2: 19 tokens reach position 20,
    # past the 20 of max_position_embeddings (a read past the table), while 21 of which 3 are pads
    # stay within it.
    ids19=0$(printf ',5%.0s' $(seq 17)),2
    run model "$R" --ids "$ids19"
    expect_code 3 "roberta: a position id past max_position_embeddings"
    expect_err_has "token 18 (item 0) has position id 20 (RoBERTa numbers the tokens that are not pad_token_id 1 from 2): the model has 20 positions (max_position_embeddings)" \
        "roberta: the position past the table named"
    ids18=0$(printf ',5%.0s' $(seq 16)),2
    run model "$R" --ids "1,$ids18,1,1;$ids18,1,1,1" --format csv
    expect_code 0 "roberta: 21 tokens, 18 of them not padding"

    # GPT-J's RoPE comes from a table of n_positions rows: 17 tokens are one too many for 16
    run model "$TINY/gptj" --ids "$(seq -s, 1 17)"
    expect_code 3 "gptj: more tokens than n_positions"
    expect_err_has "17 tokens: the model has 16 positions (n_positions)" "gptj: n_positions named"
    run model "$TINY/gptj" --ids "$(seq -s, 1 16)" --format csv
    expect_code 0 "gptj: 16 tokens in 16 positions"

    # OPT with word_embed_proj_dim (opt-350m's project_in and project_out): the attentions, and hidden
    # states refused (the last one is project_out's, narrower than the others)
    OP=$ROOT/data/models/opt_project
    rm -f "$T/opt_project.npy"
    run model "$OP" --ids "$OP/ids.txt" --show attentions --format npy -o "$T/opt_project.npy"
    expect_code 0 "opt_project: attentions"
    compare "opt_project attentions" "$T/opt_project.npy" "$OP/attentions.npy" --rtol 0 --atol 1e-5
    run model "$OP" --ids "$OP/ids.txt" --show hidden-states
    expect_code 3 "opt_project: hidden states refused"
    expect_err_has "hidden states: OPT's last one is word_embed_proj_dim 16 wide (project_out), the others hidden_size 32" \
        "opt_project: why the hidden states do not stack"
    run model "$TINY/opt" --ids "$(seq -s, 1 17)"
    expect_code 3 "opt: more tokens than max_position_embeddings"
    expect_err_has "17 tokens: the model has 16 positions (max_position_embeddings)" "opt: the position table's length named"

    # a hub cache snapshot: files are links into blobs/
    snap=$T/hub/models--tiny--qwen2/snapshots/0123abc
    mkdir -p "$T/hub/models--tiny--qwen2/blobs" "$snap"
    for f in "$TINY"/qwen2_bf16/*.json "$TINY"/qwen2_bf16/*.safetensors; do
        b=$T/hub/models--tiny--qwen2/blobs/$(basename "$f").blob
        cp "$f" "$b" && ln -s "../../blobs/$(basename "$b")" "$snap/$(basename "$f")"
    done
    rm -rf "$T/snap"
    run model "$snap" --ids "$TINY/qwen2_bf16/ids.txt" --show attentions --format npy -o "$T/snap.npy"
    expect_code 0 "a hub cache snapshot folder"
    compare "hub snapshot attentions" "$T/snap.npy" "$TINY/qwen2_bf16/attentions.npy" --rtol 0 --atol 1e-5
fi

# ---- pictures and tokens ----
run model "$TINY/bert" --ids 1,17,42,2 --layer 1 --head 3 --heatmap --show tokens --format pretty
expect_code 0 "heatmap"
expect_out_has "legend:" "--heatmap draws"
if grep -Eq '^ *1\.0000 +17\.0000 +42\.0000 +2\.0000 *$' "$T/out"; then pass; else fail "--show tokens with --heatmap: the ids not printed: $OUT"; fi
# As attend: --heatmap alone draws only the picture (it printed the csv matrices after it), and
# with --show on standard output it needs pretty, not csv mixed with a picture.
run model "$TINY/bert" --ids '1,17,2;1,42,2' --layer 0 --head 1 --heatmap
expect_code 0 "--heatmap alone"
if grep -Eq '^-?[0-9.e+-]+,' "$T/out" || ! grep -q 'legend:' "$T/out"; then fail "--heatmap alone printed matrices: $OUT"; else pass; fi
# One head's heatmap is titled with its layer and head, as several heads' are (it had no title).
run model "$TINY/bert_uncased" --text "the cat" --layer 1 --head 0 --heatmap
expect_out_has "layer 1 weights · head 0:" "--heatmap of one head names its layer and head"
# The page's sentence A/B filter is --text-pair's: a "[SEP]" typed in --text makes no pair.
run model "$TINY/bert_uncased" --text "hello [SEP] world" --html "$T/sep.html" -o /dev/null
expect_code 0 "--html of a text with [SEP] in it"
grep -qF '"sentB":0,' "$T/sep.html" && pass || fail "a [SEP] in --text split the sentences: $(grep -o '"sentB":[0-9]*' "$T/sep.html")"
run model "$TINY/bert" --ids 1,17,42,2 --heatmap --show attentions --format csv
expect_code 2 "--heatmap with csv on standard output"
expect_err_has "--heatmap draws on standard output" "--heatmap with csv named"
# A picture that cannot be written fails the run with nothing on standard output (the heatmap
# was printed before the SVG failed).
run model "$TINY/bert" --ids 1,2 --heatmap --svg "$T/no/such/dir/a.svg"
expect_code 1 "--svg into a missing folder"
if [ -s "$T/out" ]; then fail "a failed model run printed: $OUT"; else pass; fi
run model "$TINY/gpt2" --ids 1,17,42,2 --svg "$T/g.svg" --html "$T/g.html" --show attentions --layer 0 --format csv
expect_code 0 "svg and html"
if grep -q "<svg" "$T/g.svg" && grep -q "attn-line\|<html" "$T/g.html"; then pass; else fail "svg/html not written"; fi
# EmbeddingGemma's pictures: no causal rule; on its sliding layer the window both ways (5 // 2 + 1:
# two keys each side), its cells past it marked masked, the others not.
run model "$TINY/embeddinggemma" --ids 1,17,42,5,63,9,2 --layer 0 --head 0 --heatmap --svg "$T/eg.svg"
expect_code 0 "embeddinggemma pictures"
# 7 tokens: 49 cells, 7 + 2·(6 + 5) within two of the diagonal, 20 beyond it (4 in the first row)
cells=$(printf '%s\n' "$OUT" | grep -E '^[0-9]+ ' | grep -o '××' | wc -l)
first=$(printf '%s\n' "$OUT" | grep -E '^1 ' | grep -o '××' | wc -l)
if [ "$cells" -eq 20 ] && [ "$first" -eq 4 ]; then pass; else
    fail "embeddinggemma: $cells cells drawn as masked (4 in the first row: $first), expected 20 and 4"
fi
if grep -q "sliding window of 2 keys each side" "$T/eg.svg" && ! grep -q "causal" "$T/eg.svg"; then pass; else
    fail "embeddinggemma: the SVG's masking text"
fi
run model "$TINY/embeddinggemma" --ids 1,17,42,5,63,9,2 --layer 1 --head 0 --heatmap
expect_code 0 "embeddinggemma's full layer"
if [ "${OUT#*××}" = "$OUT" ]; then pass; else fail "embeddinggemma's full layer: cells drawn as masked"; fi

# DistilBERT's pictures: an encoder's, nothing masked and no masking named; its checkpoint has
# no token types to take.
run model "$TINY/distilbert" --ids 1,17,42,5 --layer 1 --heatmap --svg "$T/db.svg" --html "$T/db.html"
expect_code 0 "distilbert pictures"
if [ "${OUT#*××}" = "$OUT" ] && ! grep -q "causal\|url(#masked)" "$T/db.svg"; then pass; else
    fail "distilbert: cells drawn as masked, or a masking named"
fi
run model "$TINY/distilbert" --ids 1,17,42 --token-types 0,0,1
expect_code 3 "distilbert with token types"
expect_err_has "token types are BERT's and ALBERT's segments, or token ids for gpt2, gpt_bigcode, gpt_neo, gptj and codegen; model_type distilbert has none" "distilbert's token types refused"
# The layer names are DistilBERT's own: a BERT checkpoint under model_type distilbert is missing them.
mkdir -p "$T/db_bert" && cp "$TINY/bert/model.safetensors" "$T/db_bert/"
echo '{"model_type": "distilbert", "dim": 32, "n_heads": 4, "n_layers": 2, "hidden_dim": 64, "vocab_size": 64, "max_position_embeddings": 16}' \
    >"$T/db_bert/config.json"
run model "$T/db_bert" --ids 1,2
expect_code 3 "distilbert config over BERT weights"
expect_err_has "transformer.layer.1." "the missing DistilBERT layer named"

# BLOOM has no position table (ALiBi): 40 tokens on a model without max_position_embeddings run;
# its pictures are causal.
run model "$TINY/bloom" --ids "$(seq -s, 1 40)" --layer 0 --head 5 --show attentions --format csv
expect_code 0 "bloom on 40 tokens"
run model "$TINY/bloom" --ids 1,17,42,5 --layer 0 --head 0 --heatmap --svg "$T/bl.svg"
expect_code 0 "bloom pictures"
if grep -q "causal" "$T/bl.svg"; then pass; else fail "bloom: the SVG does not say causal"; fi

# Mixtral: every expert's weights are looked for, whichever tokens route to it.
mkdir -p "$T/mx_missing" && cp "$TINY/mixtral/config.json" "$T/mx_missing/"
with_header "$TINY/mixtral/model.safetensors" "$T/mx_missing/model.safetensors" \
    's/"model.layers.1.block_sparse_moe.experts.3.w2.weight"/"model.layers.1.block_sparse_moe.experts.3.w2.wrong_"/'
run model "$T/mx_missing" --ids 1,2
expect_code 3 "mixtral without one expert's w2"
expect_err_has "layers.1.block_sparse_moe.experts.3.w2.weight" "the missing expert weight named"
# transformers v5's fused experts (save_original_format=False) are named as what is not supported
with_header "$TINY/mixtral/model.safetensors" "$T/mx_missing/model.safetensors" \
    's/"model.layers.0.block_sparse_moe.experts.0.w1.weight"/"model.layers.0.block_sparse_moe.experts.gate_up_proj"/'
run model "$T/mx_missing" --ids 1,2
expect_code 3 "mixtral with v5's fused experts"
expect_err_has "experts fused into one tensor (transformers v5's layout) are not supported" "the fused layout named"

# ---- bad input: clear errors, exit 3 (bad input) or 2 (usage) ----
# A tokenizer.json that is a folder or a FIFO is no file left out (it said: no tokenizer.json, ...)
mkdir -p "$T/tokdir" && ln -sf "$TINY/roberta/config.json" "$TINY/roberta/model.safetensors" "$T/tokdir/"
for kind in folder fifo; do
    rm -rf "$T/tokdir/tokenizer.json"
    if [ $kind = folder ]; then mkdir "$T/tokdir/tokenizer.json"; else mkfifo "$T/tokdir/tokenizer.json"; fi
    run model "$T/tokdir" --text "time flies"
    expect_code 3 "a tokenizer.json that is a $kind"
    expect_err_has "tokdir/tokenizer.json: not a regular file" "a tokenizer.json $kind named"
done
run model "$T/nowhere" --ids 1,2
expect_code 3 "missing folder"
expect_err_has "No such file or directory" "missing folder named"
mkdir -p "$T/empty"
run model "$T/empty" --ids 1,2
expect_code 3 "folder without config.json"
expect_err_has "no config.json" "missing config.json named"
mkdir -p "$T/noweights" && cp "$TINY/bert/config.json" "$T/noweights/"
run model "$T/noweights" --ids 1,2
expect_code 3 "folder without weights"
expect_err_has "no model.safetensors" "missing weights named"
mkdir -p "$T/t5" && echo '{"model_type": "t5"}' >"$T/t5/config.json" && cp "$TINY/bert/model.safetensors" "$T/t5/"
run model "$T/t5" --ids 1,2
expect_code 3 "unknown model_type"
expect_err_has 'model_type "t5" is not supported (attn runs bert, roberta, xlm-roberta, electra, distilbert, albert, gpt2, gpt_bigcode, gpt_neo, gptj, codegen, opt, llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3_text, gemma3, phi3, glm, glm4, olmo2, olmo3, smollm3, granite, mixtral, qwen2_moe, qwen3_moe, olmo, phi, starcoder2, nemotron, stablelm, cohere, cohere2, gpt_neox, persimmon, bloom, mpt, falcon)' "unknown model_type lists the known ones"
mkdir -p "$T/relkey" && cp "$TINY/bert/model.safetensors" "$T/relkey/"
sed 's/"absolute"/"relative_key"/' "$TINY/bert/config.json" >"$T/relkey/config.json"
run model "$T/relkey" --ids 1,2
expect_code 3 "unsupported checkpoint feature"
expect_err_has 'position_embedding_type "relative_key" is not supported' "unsupported feature named"
mkdir -p "$T/wrongshape" && cp "$TINY/gpt2/model.safetensors" "$T/wrongshape/"
sed 's/"n_embd": 32/"n_embd": 48/' "$TINY/gpt2/config.json" >"$T/wrongshape/config.json"
run model "$T/wrongshape" --ids 1,2
expect_code 3 "weights that do not fit config.json"
expect_err_has "config.json needs" "misshapen weight named"
run model "$TINY/bert" --ids 1,64,2
expect_code 3 "id out of range"
expect_err_has "token id 64 (item 0, position 1) is outside the vocabulary of 64" "id out of range named"
run model "$TINY/gpt2" --ids -1,2
expect_code 3 "negative id"
run model "$TINY/bert" --ids 1,2,x
expect_code 2 "an id that is no integer"
# attn tokenize --format ids of a text pair ("IDS|TYPES") is what --text with --text-pair gives
pair_ids=$("$ATTN" tokenize "$TINY/bert_uncased" --text "time flies" --text-pair "fruit flies" --format ids)
run model "$TINY/bert_uncased" --ids "$pair_ids" --show attentions,hidden-states --format npz -o "$T/pair_ids.npz"
expect_code 0 "--ids IDS|TYPES from tokenize's pair"
run model "$TINY/bert_uncased" --text "time flies" --text-pair "fruit flies" --show attentions,hidden-states --format npz \
    -o "$T/pair_text.npz"
if cmp -s "$T/pair_ids.npz" "$T/pair_text.npz"; then pass; else fail "--ids IDS|TYPES: not what --text with --text-pair gives"; fi
run model "$TINY/bert_uncased" --ids "$pair_ids" --token-types 0
expect_code 2 "--ids IDS|TYPES with --token-types"
run model "$TINY/bert_uncased" --ids "101,102|0"
expect_code 2 "--ids IDS|TYPES of other lengths"
expect_err_has "--ids' token types (after '|') have 1x1 ids, --ids 1x2" "the types' shape named"
run model "$TINY/bert" --ids '1,2;3'
expect_code 2 "rows of different lengths"
expect_err_has "every row (batch item) needs the same number of tokens" "ragged rows named"
run model "$TINY/bert" --ids 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
expect_code 3 "more tokens than positions"
expect_err_has "max_position_embeddings" "the position limit named"
# RobertaConfig's pad_token_id: null, or outside the tables nn.Embedding(padding_idx=) checks, is
# refused; RobertaModel (no "roberta." prefix) loads BertModel-named weights
mkdir -p "$T/rcfg" && cp "$TINY/bert/model.safetensors" "$T/rcfg/"
for pad in null -17 16 1.5 1.0; do
    sed "s/\"model_type\": \"bert\"/\"model_type\": \"roberta\", \"pad_token_id\": $pad/" "$TINY/bert/config.json" >"$T/rcfg/config.json"
    run model "$T/rcfg" --ids 0,5,2
    expect_code 3 "roberta with pad_token_id $pad"
    case $pad in
        *.*) expect_err_has "\"pad_token_id\": json: expected an integer, found $pad" "roberta: pad_token_id $pad named" ;;
        *) expect_err_has '"pad_token_id" is' "roberta: pad_token_id $pad named" ;;
    esac
done
# A negative pad_token_id is an index from the end for nn.Embedding; no token equals it, so the
# positions are 0, 1, 2, ...: BERT's, bit for bit (RoBERTa takes no token types: BERT's zeros).
# Below -1 the first position is negative, which torch's lookup refuses too.
sed 's/"model_type": "bert"/"model_type": "roberta", "pad_token_id": -1/' "$TINY/bert/config.json" >"$T/rcfg/config.json"
run model "$T/rcfg" --ids 0,5,2 --show attentions,hidden-states --format csv
expect_code 0 "roberta with pad_token_id -1"
cp "$T/out" "$T/rcfg_minus1.csv"
run model "$TINY/bert" --ids 0,5,2 --token-types 0,0,0 --show attentions,hidden-states --format csv
if cmp -s "$T/out" "$T/rcfg_minus1.csv"; then pass; else fail "roberta with pad_token_id -1: not BERT's positions 0, 1, 2"; fi
sed 's/"model_type": "bert"/"model_type": "roberta", "pad_token_id": -3/' "$TINY/bert/config.json" >"$T/rcfg/config.json"
run model "$T/rcfg" --ids 0,5,2
expect_code 3 "roberta with pad_token_id -3"
expect_err_has "token 0 (item 0) has position id -2" "roberta: a negative position named"
# The word embeddings' padding_idx of BERT and the Llama family: nn.Embedding asserts
# -vocab_size <= pad_token_id < vocab_size (64 here); null or absent: none.
for model in bert qwen3_bf16; do
    mkdir -p "$T/pad_$model" && ln -sf "$TINY/$model/model.safetensors" "$T/pad_$model/"
    for pad in 64 -65; do
        sed "s/\"model_type\"/\"pad_token_id\": $pad, \"model_type\"/" "$TINY/$model/config.json" >"$T/pad_$model/config.json"
        run model "$T/pad_$model" --ids 0,5,2
        expect_code 3 "$model with pad_token_id $pad"
        expect_err_has "\"pad_token_id\" is $pad: expected an integer id from -64 to 63" "$model: pad_token_id $pad named"
    done
    sed 's/"model_type"/"pad_token_id": -64, "model_type"/' "$TINY/$model/config.json" >"$T/pad_$model/config.json"
    run model "$T/pad_$model" --ids 0,5,2
    expect_code 0 "$model with pad_token_id -64"
done
sed 's/"model_type": "bert"/"model_type": "roberta", "pad_token_id": 14/' "$TINY/bert/config.json" >"$T/rcfg/config.json"
run model "$T/rcfg" --ids 0,5,2
expect_code 3 "roberta: 3 tokens from position 15 of 16"
run model "$T/rcfg" --ids 0,14,14
expect_code 0 "roberta: pad tokens keep position pad_token_id (14 of 16)"
sed 's/"model_type": "bert"/"model_type": "roberta"/; s/"absolute"/"relative_key_query"/' "$TINY/bert/config.json" >"$T/rcfg/config.json"
run model "$T/rcfg" --ids 0,5,2
expect_code 3 "roberta with relative positions"
expect_err_has 'position_embedding_type "relative_key_query" is not supported' "roberta: relative positions named"
run model "$TINY/bert" --ids 1,2 --layer 2
expect_code 3 "layer past the last"
run model "$TINY/bert" --ids 1,2 --head 4
expect_code 3 "head past the last (the checkpoint's range, as --layer)"
run model "$TINY/bert" --ids 1,2 --token-types 0,2
expect_code 3 "token type out of range"
run model "$TINY/llama" --ids 1,2 --token-types 0,0
expect_code 3 "token types for a model without them"
# a NaN weight (the first value of the word embeddings, row 0) in a row the ids use is an input
# error naming the tensor, the row and the column (the help's promise), not a result
mkdir -p "$T/nan" && cp "$TINY/bert/config.json" "$TINY/bert/model.safetensors" "$T/nan/"
hl=$(od -An -t u8 -N8 "$T/nan/model.safetensors" | tr -d ' ')
printf '\000\000\300\177' | dd of="$T/nan/model.safetensors" bs=1 seek=$((8 + hl)) conv=notrunc 2>/dev/null
run model "$T/nan" --ids 0,1 --show attentions --format npy -o "$T/nan.npy"
expect_code 3 "a NaN weight in an embedding row the ids use"
expect_err_has "$T/nan: tensor 'embeddings.word_embeddings.weight': row 0, column 0 (0-based): non-finite value 'nan' is not allowed here (the row of an id or position the tokens use)" "a NaN embedding row named"
if [ -e "$T/nan.npy" ]; then fail "a NaN result was written"; else pass; fi
run model "$T/nan" --ids 1,2 --show attentions --format csv
expect_code 0 "the NaN row is not used by ids 1,2"

# transformers v5 keeps RoPE's theta and scaling in "rope_parameters": the tiny Llama's config so
# written (theta 500 moved in, no rope_theta or rope_scaling left) gives the bits of the v4
# config with rope_theta 500, and not those of the default theta.
mkdir -p "$T/v4" "$T/v5"
ln -s "$TINY/llama/model.safetensors" "$T/v4/model.safetensors"
ln -s "$TINY/llama/model.safetensors" "$T/v5/model.safetensors"
sed 's/"rope_theta": 10000.0/"rope_theta": 500.0/' "$TINY/llama/config.json" >"$T/v4/config.json"
sed -e '/"rope_theta"/d' -e 's/"rope_scaling": {/"rope_parameters": {\n    "rope_theta": 500.0,/' \
    "$TINY/llama/config.json" >"$T/v5/config.json"
"$ATTN" model "$T/v4" --ids 1,2,3,4 --show attentions --format csv >"$T/v4.csv" 2>/dev/null
"$ATTN" model "$TINY/llama" --ids 1,2,3,4 --show attentions --format csv >"$T/v4_default.csv" 2>/dev/null
run model "$T/v5" --ids 1,2,3,4 --show attentions --format csv
expect_code 0 "rope_parameters"
if grep -q '"rope_parameters"' "$T/v5/config.json" && ! grep -q '"rope_theta": 10000' "$T/v5/config.json" &&
    cmp -s "$T/out" "$T/v4.csv" && ! cmp -s "$T/out" "$T/v4_default.csv"
then pass; else fail "rope_parameters: not the numbers of the v4 config with the same theta and scaling"; fi
sed 's/"rope_scaling": {/"rope_parameters": {"full_attention": {"rope_theta": 5}}, "x": {/' "$TINY/llama/config.json" >"$T/v5/config.json"
run model "$T/v5" --ids 1,2,3,4
expect_code 3 "rope_parameters per layer type"
expect_err_has '"rope_parameters" per layer type is not supported' "rope_parameters per layer type named"

# LayerNorm parameters named gamma and beta (checkpoints converted from TensorFlow, as the
# original BERT's) are the weight and bias transformers loads them as: the same attentions.
mkdir -p "$T/gamma" && cp "$TINY/bert/config.json" "$T/gamma/"
hl=$(od -An -t u8 -N8 "$TINY/bert/model.safetensors" | tr -d ' ')
{ head -c $((8 + hl)) "$TINY/bert/model.safetensors" |
      LC_ALL=C sed -e 's/LayerNorm\.weight"/LayerNorm.gamma" /g' -e 's/LayerNorm\.bias"/LayerNorm.beta"/g'
  tail -c +$((9 + hl)) "$TINY/bert/model.safetensors"; } >"$T/gamma/model.safetensors"
if grep -q 'LayerNorm.gamma' "$T/gamma/model.safetensors" && ! grep -q 'LayerNorm.weight' "$T/gamma/model.safetensors"
then pass; else fail "the gamma/beta copy of the tiny BERT was not made"; fi
run model "$T/gamma" --ids 1,2,3 --show attentions,hidden-states --format csv
expect_code 0 "LayerNorm.gamma and .beta"
"$ATTN" model "$TINY/bert" --ids 1,2,3 --show attentions,hidden-states --format csv >"$T/gamma_want.csv" 2>/dev/null
if cmp -s "$T/out" "$T/gamma_want.csv"; then pass; else fail "gamma/beta names gave other numbers than weight/bias"; fi
run model "$TINY/bert" --text "time flies like an arrow"
expect_code 3 "--text without a tokenizer"
expect_err_has "--text needs the model folder's tokenizer" "--text explains"
expect_err_has "no tokenizer.json, vocab.txt, or vocab.json and merges.txt" "--text names the files"
run model "$TINY/bert_uncased" --text "time flies" --ids 101,102
expect_code 2 "--text with --ids"
expect_err_has "--text and --ids" "--text with --ids named"
run model "$TINY/bert_uncased" --text-pair "time flies"
expect_code 2 "--text-pair without --text"
run model "$TINY/bert_uncased" --text "time flies" --token-types 0,0,0,0
expect_code 2 "--text with --token-types"
run model "$TINY/bert" --ids 1,2 --show weights
expect_code 2 "unknown --show item"

# A NaN or infinity in a weight is an input error naming the tensor: in a query or key
# projection it gives NaN scores, which the softmax takes for masked cells, and the layer's
# attentions would come out finite (PyTorch gives NaN).
# poke FOLDER TENSOR BYTES: writes BYTES (printf escapes) at element 5 of TENSOR in FOLDER/model.safetensors.
poke() {
    local f=$1/model.safetensors n header size=${4:-4}
    n=$(od -An -tu8 -N8 "$f" | tr -d ' ')
    header=$(head -c $((8 + n)) "$f" | tail -c "$n")
    if [[ $header =~ \"$2\":\{[^}]*\"data_offsets\":\[([0-9]+) ]]; then
        # shellcheck disable=SC2059 # $3: the bytes, as printf escapes
        printf "$3" | dd of="$f" bs=1 seek=$((8 + n + BASH_REMATCH[1] + size * 5)) conv=notrunc status=none
    else
        fail "poke: no tensor $2 in $f"
    fi
}
for spec in "llama|model.layers.0.self_attn.k_proj.weight|\x00\x00\xc0\x7f|4|nan" \
            "gpt2|transformer.h.0.attn.c_attn.weight|\x00\x00\x80\x7f|4|inf" \
            "llama_bf16|model.layers.0.self_attn.q_proj.weight|\xc0\x7f|2|nan"; do
    IFS='|' read -r name tensor bytes size value <<<"$spec"
    rm -rf "$T/nanw" && cp -r "$ROOT/data/models/tiny/$name" "$T/nanw"
    poke "$T/nanw" "$tensor" "$bytes" "$size"
    run model "$T/nanw" --ids 1,5,9,3 --format csv
    expect_code 3 "$name: a $value in $tensor"
    expect_err_has "tensor '$tensor': row 0, column 5 (0-based): non-finite value '$value'" "$name: the error names the tensor and the element"
done

# BLOOM's sliced projections leave their biases unread (transformers adds none of them): a NaN
# there is no matter, as in any weight the pass leaves unused (a review found them read and checked).
rm -rf "$T/nanw" && cp -r "$ROOT/data/models/tiny/bloom_tp_sliced" "$T/nanw"
poke "$T/nanw" "h.0.self_attention.dense.bias" '\x00\x00\xc0\x7f' 4
poke "$T/nanw" "h.1.mlp.dense_4h_to_h.bias" '\x00\x00\xc0\x7f' 4
run model "$T/nanw" --ids 1,5,9,3 --format csv
expect_code 0 "bloom_tp_sliced with a NaN in its unused biases"
if [ -z "$ERR" ]; then pass; else fail "bloom_tp_sliced's unused biases: $ERR"; fi

# A hidden_size of 10^9 over tiny weights is the token embeddings' shape, exit 3, before any result
# is allocated (from an audit: "not enough memory: a buffer of 48.0 GB", exit 1).
for name in llama bert opt; do
    rm -rf "$T/wide" && mkdir -p "$T/wide" && cp "$TINY/$name/model.safetensors" "$T/wide/"
    sed 's/"hidden_size": [0-9]*/"hidden_size": 1000000000/; s/"word_embed_proj_dim": [0-9]*/"word_embed_proj_dim": 1000000000/' \
        "$TINY/$name/config.json" >"$T/wide/config.json"
    run model "$T/wide" --ids 1,5,9,3 --show hidden-states --format csv
    expect_code 3 "$name with hidden_size 10^9"
    expect_err_has "1000000000" "$name with hidden_size 10^9: the shape named"
done

# null in config.json is Python's None, as transformers' code tests it (from an audit): GPT-2's
# `if self.scale_attn_weights:` is false for it (it scaled by 1/sqrt(d)); BERT adds positions only
# `if position_embedding_type == "absolute"` (it added them).
mkdir -p "$T/nulls" && cp "$TINY/gpt2_unscaled/model.safetensors" "$T/nulls/"
sed 's/"scale_attn_weights": false/"scale_attn_weights": null/' "$TINY/gpt2_unscaled/config.json" >"$T/nulls/config.json"
run model "$T/nulls" --ids "$TINY/gpt2_unscaled/ids.txt" --format npy -o "$T/nulls.npy"
expect_code 0 "gpt2 with scale_attn_weights null"
if grep -q '"scale_attn_weights": null' "$T/nulls/config.json" && [ -f "$T/nulls.npy" ] &&
    "$ALLCLOSE" "$T/nulls.npy" "$TINY/gpt2_unscaled/attentions.npy" --rtol 0 --atol 1e-5 >/dev/null 2>&1; then pass
else fail "gpt2 with scale_attn_weights null: not the unscaled attentions"; fi
rm -rf "$T/nulls" && mkdir -p "$T/nulls" && cp "$TINY/bert/model.safetensors" "$T/nulls/"
sed 's/"position_embedding_type": "absolute"/"position_embedding_type": null/' "$TINY/bert/config.json" >"$T/nulls/config.json"
"$ATTN" model "$T/nulls" --ids 1,17,42 --format npy -o "$T/null_pos.npy" 2>/dev/null
poke "$T/nulls" embeddings.position_embeddings.weight '\x00\x00\x80\x3f'  # 1.0 at element 5: unused, no difference
run model "$T/nulls" --ids 1,17,42 --format npy -o "$T/null_pos_poked.npy"
expect_code 0 "bert with position_embedding_type null"
"$ATTN" model "$TINY/bert" --ids 1,17,42 --format npy -o "$T/abs_pos.npy" 2>/dev/null
if grep -q '"position_embedding_type": null' "$T/nulls/config.json" && cmp -s "$T/null_pos.npy" "$T/null_pos_poked.npy" &&
    ! cmp -s "$T/null_pos.npy" "$T/abs_pos.npy"; then pass
else fail "bert with position_embedding_type null: its attentions depend on the position table, or equal the absolute run"; fi

# Token ids as labels (--ids, no tokenizer) read as numbers: csv quotes them and tsv escapes
# their first character, so that the labelled output still reads back as the matrix it labels.
for f in csv tsv; do
    "$ATTN" model "$TINY/bert" --ids 1,17,42,2 --layer 0 --head 1 --format $f -o "$T/ids.$f" 2>/dev/null
    "$ATTN" model "$TINY/bert" --ids 1,17,42,2 --layer 0 --head 1 --format npy -o "$T/ids_$f.npy" 2>/dev/null
    run concat "$T/ids.$f" --format npy -o "$T/ids_back_$f.npy"
    expect_code 0 "model --ids --format $f reads back"
    if cmp -s "$T/ids_back_$f.npy" "$T/ids_$f.npy"; then pass; else fail "model --ids --format $f: read back, not the npy's numbers"; fi
done

# An empty --svg or --html is refused, as attend and view refuse it (it drew nothing, exit 0).
for o in svg html; do
    run model "$TINY/bert" --ids 1,2 --$o ''
    expect_code 2 "model --$o ''"
    expect_err_has "--$o needs a file name" "model --$o '' says so"
done

# A model folder whose weights are a dangling link, or a link loop, says so (from an audit: it
# said there were no weights)
for kind in dangling loop; do
    rm -rf "$T/link" && mkdir -p "$T/link" && cp "$TINY/bert/config.json" "$T/link/"
    if [ $kind = dangling ]; then ln -s "$T/nowhere/model.safetensors" "$T/link/model.safetensors"
    else ln -s model.safetensors "$T/link/model.safetensors"; fi
    run model "$T/link" --ids 1,2
    expect_code 3 "weights a $kind link"
    expect_err_has "$T/link/model.safetensors: a symbolic link to nothing that can be read" "weights a $kind link: named"
done
