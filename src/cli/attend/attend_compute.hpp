// `attn attend`'s computation: the inputs handed to the engine (multi-head attention from
// embeddings, or batched attention on Q/K/V), and its results as views shaped by the output
// rank rule: a batch dimension when an input has one, a head dimension when an input has
// one or --heads is given; 2-D in, 2-D out. Ranges (--query-rows, --batch-items) select
// rows and batch items of every result.
#pragma once
#include <cstddef>
#include <functional>

#include "attn/multihead.hpp"
#include "attn/tensor.hpp"
#include "cli/attend/attend_inputs.hpp"
#include "cli/attend/attend_options.hpp"

namespace attn::cli {

struct AttendSettings {
    float scale = 1;
    Causal causal = Causal::none;
    Normalization normalize = Normalization::softmax;
    MaskedRowPolicy masked_rows = MaskedRowPolicy::zero;
    Range rows{0, 0};   // query rows computed ([0, Tq) when end == 0)
    Range items{0, 0};  // batch items computed ([0, B) when end == 0)
};

struct AttendResults {
    // What --show prints (rank 0 when not computed). queries/keys/values per head when
    // there is a head dimension.
    TensorView queries, keys, values, scores, scaled, weights, weights_mean, context, output;
    std::size_t masked_rows = 0;
    std::size_t batch = 1, heads = 1, kv_heads = 1;  // of the computed results
    bool head_dim = false;                         // the results carry a head dimension
    Range rows, items;                             // global query rows and batch items computed

    // Storage the views point into.
    Multihead multihead;
    BatchedAttention attention;
    Tensor concat;
    Tensor projected;  // -q/-k/-v with --wo: the heads concatenated, times W_O, plus b_O
    Tensor keys_f32, values_f32;  // float16 keys/values widened, when shown
};

// kv_shown: the keys and values are printed or used by the diagnostics (float16 ones are
// then widened; otherwise `keys` and `values` stay empty for them).
AttendResults compute_attention(const AttendInputs& in, const AttendSettings& settings, const AttentionWants& wants,
                                bool kv_shown);

// The 2-D slice for batch item b and head h (indices into the computed results) of a view
// shaped by the rank rule or broadcast like an input: a missing or size-1 batch/head
// dimension is shared; a view with G < H heads gives query head h its group's head.
MatrixView slice_at(const TensorView& v, std::size_t b, std::size_t h, std::size_t heads);

// Whether key j is allowed for computed query row i of (b, h), by the masking rule the
// engine applies (causal with the global row index, --lengths, --mask, --bias -inf).
using AllowedFn = std::function<bool(std::size_t b, std::size_t h, std::size_t i, std::size_t j)>;
AllowedFn allowed_cells(const AttendInputs& in, const AttendSettings& settings, const AttendResults& res);

}  // namespace attn::cli
