// `attn attend`'s inputs: which files the options name, read as tensors, weights brought to
// attn's layout (from nn.Linear / nn.MultiheadAttention layouts when asked), and every shape
// checked against the others with messages that name the options. The library checks shapes
// too, but it does not know the options.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "attn/io.hpp"
#include "attn/mask_bits.hpp"
#include "attn/multihead.hpp"
#include "attn/problem.hpp"
#include "attn/tensor.hpp"
#include "cli/attend/attend_scores.hpp"
#include "cli/common.hpp"

namespace attn::cli {

struct AttendInputs {
    // -x form: embeddings and projections (attn's in×out layout; rank 0 = not given).
    bool embeddings = false;
    Tensor x, kv;  // kv rank 0: keys and values come from x
    bool sinusoidal = false;  // --pos sinusoidal: added to x and kv once the cache's length is known
    Tensor wq, wk, wv, bq, bk, bv, wo, bo;
    std::size_t heads = 1, kv_heads = 1;
    bool heads_given = false;  // --heads given: results carry a head dimension
    ProjectionShapes projections;  // the library's resolve_projections of them

    // -q/-k/-v form (keys and values from a float16 .npy stay float16). packed: --heads was
    // given, and -q/-k/-v are ([B,] T, H·d) with the heads side by side (ONNX's 3-D form,
    // PyTorch before .view(B, T, H, d)); the views below split them.
    Tensor q;
    io::KVInput k, v;
    bool packed = false;
    // --past-k/--past-v (attend_cache.hpp): with -q/-k/-v, k and v hold the present cache, past
    // ++ new, with the heads as a dimension (kv_split: not split again); with -x, past_k/past_v
    // hold the cache as read and cache its (B, G, P, d) reading, which the projections extend
    // (multihead.hpp's KVCache). past = the cache's length P.
    bool kv_split = false;
    std::size_t past = 0;
    io::KVInput past_k, past_v;
    KVCache cache;
    // --kv-dtype: K and V as read, in float32, before they were stored (empty otherwise).
    std::vector<Tensor> kv_f32;
    // --kv-dtype with --rope: K is left as read by store_kv and rounded to this type after its
    // rotation (Rope::keys_as), as engines cache it; f32 otherwise.
    ElementType keys_after_rope = ElementType::f32;
    // --kv-dtype with -x: the type the projected K and V are kept in (MultiheadWeights::kv_type).
    ElementType projected_kv = ElementType::f32;
    TensorView q_view() const;  // ([B,] H, Tq, d_k): the heads of -q
    KVView k_view() const;
    KVView v_view() const;

    Tensor bias;  // rank 0 = none
    // --mask, --attn-mask (boolean) and --key-padding-mask as one mask, packed as it is read
    // (what the kernels read; rank 0 = none).
    MaskBits mask_bits;
    // The options that gave bias and mask_bits, for their errors: "--bias" or "--attn-mask" (a
    // float one); the one of "--mask", "--attn-mask" and "--key-padding-mask" given, or "the mask of
    // --mask and --key-padding-mask" (those given).
    std::string bias_flag = "--bias", mask_flag = "--mask";
    std::vector<std::size_t> lengths;
    std::vector<float> sinks;          // --sinks: one logit per query head (empty: none)
    std::vector<long long> segments;   // --segments: document ids, segment_rows rows of T (empty: none)
    std::size_t segment_rows = 1;
    ScoreWeights scores;  // --score and its weights
    std::vector<std::string> query_labels, key_labels;  // empty = none

    // The attention problem of these inputs as the engine resolves it (attn/problem.hpp; for
    // -x, over the projected heads' shapes), without the ranges. The sizes below are its:
    // Tq, Tk, d_k (per head), B (1 without a batch dimension) and H, G; batched / head_dim:
    // the results carry a batch / head dimension.
    AttentionProblem problem;
    std::size_t Tq = 0, Tk = 0, d_k = 0, batch = 1;
    bool batched = false;
    bool head_dim = false;
};

// Reads and checks everything; UsageError for inconsistent options, InputError for files
// whose shapes do not fit together.
AttendInputs read_attend_inputs(const cxxopts::ParseResult& r, InputNames& names);

// The options that belong to the -x form (projections); for the usage checks.
const std::vector<const char*>& projection_options();

}  // namespace attn::cli
