#include "cli/attend/attend_compute.hpp"

#include <cstring>
#include <vector>

#include "attn/masking.hpp"

namespace attn::cli {

namespace {

// The view restricted to indices [begin, end) of dimension `axis` (no copy).
TensorView narrow(TensorView v, std::size_t axis, std::size_t begin, std::size_t end) {
    v.data += begin * v.strides[axis];
    v.shape[axis] = end - begin;
    return v;
}

// The view without dimension `axis` (of extent 1).
TensorView drop_axis(const TensorView& v, std::size_t axis) {
    std::vector<std::size_t> dims;
    TensorView out;
    out.data = v.data;
    for (std::size_t d = 0, k = 0; d < v.rank(); ++d) {
        if (d == axis) continue;
        dims.push_back(v.shape[d]);
        out.strides[k++] = v.strides[d];
    }
    out.shape = Shape(dims);
    return out;
}

// Query rows [A, B) of dimension -2 (when narrow_rows), and batch items [A, B) of dimension
// 0 when that is a batch dimension (has_batch) of more than one item (one item is shared).
TensorView select(TensorView v, const Range& rows, bool narrow_rows, const Range& items, bool has_batch) {
    if (!v.rank()) return v;
    if (narrow_rows && v.rank() >= 2) v = narrow(v, v.rank() - 2, rows.begin, rows.end);
    if (has_batch && v.shape[0] > 1) v = narrow(v, 0, items.begin, items.end);
    return v;
}

}  // namespace

MatrixView slice_at(const TensorView& v, std::size_t b, std::size_t h, std::size_t heads) {
    const std::size_t r = v.rank();
    const std::size_t n_heads = r >= 3 ? v.shape[r - 3] : 1, n_batch = r >= 4 ? v.shape[r - 4] : 1;
    const std::size_t hh = n_heads == 1 ? 0 : h / (heads / n_heads);
    const std::size_t bb = n_batch == 1 ? 0 : b;
    const float* data = v.data;
    if (r >= 3) data += hh * v.strides[r - 3];
    if (r >= 4) data += bb * v.strides[r - 4];
    return {data, v.rows(), v.cols(), v.row_stride()};
}

AttendResults compute_attention(const AttendInputs& in, const AttendSettings& s, const AttentionWants& wants,
                                bool kv_shown) {
    AttendResults res;
    res.rows = s.rows.end ? s.rows : Range{0, in.Tq};
    res.items = s.items.end ? s.items : Range{0, in.batch};
    AttentionSpec spec;
    spec.scale = s.scale;
    spec.causal = s.causal;
    spec.normalize = s.normalize;
    spec.masked_rows = s.masked_rows;
    spec.lengths = in.lengths;
    const TensorView mask = in.mask.view(), bias = in.bias.view();
    spec.mask = in.mask.rank() ? &mask : nullptr;
    spec.mask_bits = in.mask.rank() ? &in.mask_bits : nullptr;
    spec.bias = in.bias.rank() ? &bias : nullptr;
    if (s.rows.end) spec.query_rows = {s.rows.begin, s.rows.end};
    if (s.items.end) spec.batch_items = {s.items.begin, s.items.end};
    spec.head_axis = in.heads_given ? HeadAxis::always : HeadAxis::by_rank;

    if (in.embeddings) {
        const TensorView x = in.x.view(), kv = in.kv.view();
        const TensorView wq = in.wq.view(), wk = in.wk.view(), wv = in.wv.view(), wo = in.wo.view();
        const TensorView bq = in.bq.view(), bk = in.bk.view(), bv = in.bv.view(), bo = in.bo.view();
        auto opt = [](const Tensor& t, const TensorView& v) { return t.rank() ? &v : nullptr; };
        MultiheadWeights w;
        w.heads = in.heads, w.kv_heads = in.kv_heads;
        w.wq = opt(in.wq, wq), w.wk = opt(in.wk, wk), w.wv = opt(in.wv, wv), w.wo = opt(in.wo, wo);
        w.bq = opt(in.bq, bq), w.bk = opt(in.bk, bk), w.bv = opt(in.bv, bv), w.bo = opt(in.bo, bo);
        res.multihead = multihead_attention(x, in.kv.rank() ? &kv : nullptr, w, spec, wants);
        res.attention = std::move(res.multihead.attention);
        const Multihead& mh = res.multihead;
        // Projections per head (a strided view) with --heads; as projected without.
        const TensorView q = in.heads_given ? split_heads(mh.queries, in.heads) : mh.queries.view();
        const TensorView k = in.heads_given ? split_heads(mh.keys, in.kv_heads) : mh.keys.view();
        const TensorView v = in.heads_given ? split_heads(mh.values, in.kv_heads) : mh.values.view();
        res.queries = select(q, res.rows, true, res.items, in.batched);
        res.keys = select(k, res.rows, false, res.items, in.batched);
        res.values = select(v, res.rows, false, res.items, in.batched);
        res.output = mh.output.view();
    } else {
        res.attention = batched_attention(in.q.view(), in.k.view(), in.v.view(), spec, wants);
        // Float16 keys and values are widened only when they are shown themselves.
        if (kv_shown && in.k.half()) res.keys_f32 = to_float(in.k.view());
        if (kv_shown && in.v.half()) res.values_f32 = to_float(in.v.view());
        const TensorView k = in.k.half() ? res.keys_f32.view() : in.k.f32.view();
        const TensorView v = in.v.half() ? res.values_f32.view() : in.v.f32.view();
        // An input has a batch dimension when it has four.
        res.queries = select(in.q.view(), res.rows, true, res.items, in.q.rank() == 4);
        if (k.rank()) res.keys = select(k, res.rows, false, res.items, in.k.rank() == 4);
        if (v.rank()) res.values = select(v, res.rows, false, res.items, in.v.rank() == 4);
    }
    BatchedAttention& att = res.attention;
    res.batch = res.items.end - res.items.begin;
    res.heads = att.heads, res.kv_heads = att.kv_heads;
    res.masked_rows = att.masked_rows;
    // The per-head results: the engine gives multi-head attention a head dimension always;
    // without --heads the single head is dropped (2-D in, 2-D out).
    const std::size_t head_axis = in.batched ? 1 : 0;
    auto shaped = [&](const Tensor& t, bool per_head) -> TensorView {
        if (!t.rank()) return {};
        TensorView v = t.view();
        // A mask or bias of more dimensions than the inputs (leading 1s, as check_broadcast
        // allows) gives the engine's results a batch or head dimension of extent 1 that the
        // inputs lack: dropped, so every result has the shape the inputs give (2-D in, 2-D out).
        const bool head_axis_kept = per_head && (in.head_dim || in.embeddings);
        const std::size_t rank = 2 + (in.batched ? 1 : 0) + (head_axis_kept ? 1 : 0);
        while (v.rank() > rank) v = drop_axis(v, 0);
        if (per_head && in.embeddings && !in.heads_given && v.rank() == head_axis + 3) v = drop_axis(v, head_axis);
        return v;
    };
    res.scores = shaped(att.scores, true);
    res.scaled = shaped(att.scaled, true);
    res.weights = shaped(att.weights, true);
    res.weights_mean = shaped(att.weights_mean, false);
    res.context = shaped(att.context, true);
    res.head_dim = in.head_dim;
    if (!in.embeddings && res.context.rank()) {
        // The heads side by side, then W_O + b_O when given (as multihead_attention does for -x).
        if (res.head_dim) res.concat = concat_heads(res.context, in.batched);
        const TensorView heads = res.head_dim ? res.concat.view() : res.context;
        if (in.wo.rank()) {
            const TensorView wo = in.wo.view(), bo = in.bo.view();
            res.projected = linear(heads, &wo, in.bo.rank() ? &bo : nullptr, "W_O");
            res.output = res.projected.view();
        } else {
            res.output = heads;
        }
    }
    return res;
}

AllowedFn allowed_cells(const AttendInputs& in, const AttendSettings& s, const AttendResults& res) {
    const TensorView mask = in.mask.view(), bias = in.bias.view();
    const bool has_mask = in.mask.rank() > 0, has_bias = in.bias.rank() > 0;
    const std::size_t Tq = in.Tq, Tk = in.Tk, H = in.heads;
    const Range rows = res.rows, items = res.items;
    const std::vector<std::size_t> lengths = in.lengths;
    const Causal causal = s.causal;
    return [=](std::size_t b, std::size_t h, std::size_t i, std::size_t j) {
        const std::size_t gb = items.begin + b, gi = rows.begin + i;
        const std::size_t limit = lengths.empty() ? no_key_limit : lengths[gb];
        const std::size_t visible = visible_keys(causal, gi, Tq, Tk, limit);
        const float* mask_row = nullptr;
        const float* bias_row = nullptr;
        if (has_mask) {
            const MatrixView m = slice_at(mask, gb, h, H);
            mask_row = m.row(m.rows == 1 ? 0 : gi);
        }
        if (has_bias) {
            const MatrixView m = slice_at(bias, gb, h, H);
            bias_row = m.row(m.rows == 1 ? 0 : gi);
        }
        return is_allowed(j, visible, mask_row, bias_row);
    };
}

}  // namespace attn::cli
