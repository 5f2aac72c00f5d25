// Multi-head projections (attn/multihead.hpp): X·W + b, heads as column blocks, W_O, and
// PyTorch's weight layouts (nn.Linear's out×in, nn.MultiheadAttention's stacked in_proj).
#include "attn/multihead.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/ops.hpp"

namespace attn {

namespace {

std::string dims(const TensorView& v) { return v.shape.dims_text(); }

// A bias as a row of n floats, or an error naming it.
const float* bias_row(const TensorView* b, std::size_t n, const char* what) {
    if (!b) return nullptr;
    const bool row = (b->rank() == 1 && b->shape[0] == n) || (b->rank() == 2 && b->shape[0] == 1 && b->shape[1] == n);
    if (!row)
        throw InputError(std::string("the bias of ") + what + " is " + dims(*b) + ": expected one row of " +
                         std::to_string(n) + " values, one per output of " + what);
    return b->data;
}

}  // namespace

Tensor linear(const TensorView& X, const TensorView* W, const TensorView* b, const char* what) {
    if (X.rank() < 2 || X.rank() > 3)
        throw InputError("X " + X.shape.text() + " has " + std::to_string(X.rank()) +
                         " dimensions: expected T×D or B×T×D");
    const std::size_t D = X.cols(), T = X.rows(), B = X.rank() == 3 ? X.shape[0] : 1;
    if (W && (W->rank() != 2 || W->shape[0] != D))
        throw InputError(std::string(what) + " is " + dims(*W) + " but X has D=" + std::to_string(D) +
                         " columns: a projection must have D rows");
    const std::size_t N = W ? W->shape[1] : D;
    const float* brow = bias_row(b, N, what);
    std::vector<std::size_t> out_dims = X.shape.to_vector();
    out_dims.back() = N;
    Tensor out{Shape(out_dims)};
    if (!W) {
        out = to_tensor(X);
    } else {
        const MatrixView w{W->data, D, N, W->strides[0]};
        const std::size_t ldx = X.row_stride();
        // One GEMM over every row of every batch item when the items are evenly spaced rows.
        if (B == 1 || X.strides[0] == T * ldx) {
            matmul_into({X.data, B * T, D, ldx}, w, false, out.data(), out.row_stride());
        } else {
            for (std::size_t s = 0; s < B; ++s) matmul_into(X.slice(s), w, false, out.slice_data(s), out.row_stride());
        }
    }
    if (brow) {
        const std::size_t all_rows = B * T, ld = out.row_stride();
        float* o = out.data();
        for (std::size_t i = 0; i < all_rows; ++i)
            for (std::size_t j = 0; j < N; ++j) o[i * ld + j] += brow[j];
    }
    return out;
}

TensorView split_heads(const Tensor& projected, std::size_t heads) {
    const std::size_t r = projected.rank();
    if (r < 2 || r > 3 || heads == 0 || projected.cols() % heads != 0)
        throw InputError("a projection " + projected.shape().text() + " cannot be split into " +
                         std::to_string(heads) + " heads: its columns must be a multiple of the heads");
    const std::size_t T = projected.rows(), d = projected.cols() / heads, ld = projected.row_stride();
    TensorView v;
    v.data = projected.data();
    if (r == 2) {
        v.shape = Shape{heads, T, d};
        v.strides[0] = d, v.strides[1] = ld, v.strides[2] = 1;
    } else {
        v.shape = Shape{projected.shape()[0], heads, T, d};
        v.strides[0] = T * ld, v.strides[1] = d, v.strides[2] = ld, v.strides[3] = 1;
    }
    return v;
}

KVView split_heads(const KVView& packed, std::size_t heads) {
    const std::size_t r = packed.rank();
    if (r < 2 || r > 3 || heads == 0 || packed.shape.back(1) % heads != 0)
        throw InputError("a tensor " + packed.shape.text() + " cannot be split into " + std::to_string(heads) +
                         " heads: its columns must be a multiple of the heads");
    const std::size_t T = packed.shape.back(2), d = packed.shape.back(1) / heads, ld = packed.strides[r - 2];
    KVView v = packed;
    if (r == 2) {
        v.shape = Shape{heads, T, d};
        v.strides[0] = d, v.strides[1] = ld, v.strides[2] = 1;
    } else {
        v.shape = Shape{packed.shape[0], heads, T, d};
        v.strides[0] = packed.strides[0], v.strides[1] = d, v.strides[2] = ld, v.strides[3] = 1;
    }
    return v;
}

Tensor concat_heads(const TensorView& per_head, bool batched) {
    const std::size_t B = batched ? per_head.shape[0] : 1, H = per_head.shape.back(3);
    const std::size_t T = per_head.rows(), d = per_head.cols();
    Tensor out(batched ? Shape{B, T, H * d} : Shape{T, H * d}, Tensor::Uninitialized{});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {
            const MatrixView m = per_head.slice(b * H + h);
            for (std::size_t i = 0; i < T; ++i)
                std::memcpy(out.slice_data(b) + i * out.row_stride() + h * d, m.row(i), d * sizeof(float));
        }
    return out;
}

Multihead multihead_attention(const TensorView& X, const TensorView* X_kv, const MultiheadWeights& w,
                              const AttentionSpec& spec, const AttentionWants& wants) {
    const TensorView& Xkv = X_kv ? *X_kv : X;
    if (X.rank() < 2 || X.rank() > 3 || Xkv.rank() != X.rank() || (X.rank() == 3 && Xkv.shape[0] != X.shape[0]))
        throw InputError("X " + X.shape.text() + " and the key/value source " + Xkv.shape.text() +
                         " must both be T×D, or both B×T×D with the same B");
    const std::size_t H = w.heads, G = w.kv_heads ? w.kv_heads : w.heads;
    if (H == 0 || G == 0 || H % G != 0)
        throw InputError(std::to_string(H) + " query heads cannot share " + std::to_string(G) +
                         " key/value heads: the query heads must be a multiple of the key/value heads");
    Multihead m;
    m.queries = linear(X, w.wq, w.bq, "W_q");
    m.keys = linear(Xkv, w.wk, w.bk, "W_k");
    m.values = linear(Xkv, w.wv, w.bv, "W_v");
    if (m.queries.cols() % H != 0 || m.keys.cols() % G != 0 || m.values.cols() % G != 0 ||
        m.queries.cols() / H != m.keys.cols() / G)
        throw InputError("projections with " + std::to_string(m.queries.cols()) + ", " +
                         std::to_string(m.keys.cols()) + " and " + std::to_string(m.values.cols()) +
                         " columns do not split into " + std::to_string(H) + " query heads and " + std::to_string(G) +
                         " key/value heads of equal d_k (W_q needs H·d_k columns, W_k G·d_k, W_v G·d_v)");
    AttentionSpec s = spec;
    // A projection's heads are always an axis of the inputs; the results keep it unless the
    // caller asked for none (one head, results without a head dimension).
    if (s.head_axis == HeadAxis::by_rank) s.head_axis = HeadAxis::always;
    AttentionWants inner = wants;
    inner.context = true;
    m.problem = resolve_attention(split_heads(m.queries, H), split_heads(m.keys, G), split_heads(m.values, G), s);
    const AttentionProblem& p = m.problem;
    m.attention = batched_attention(p, inner);
    OutputProjection o = project_output(m.attention.context.view(), p.head_dim, X.rank() == 3, w.wo, w.bo);
    m.concat = std::move(o.concat);
    m.output = std::move(o.output);
    if (!wants.context) m.attention.context = Tensor();
    return m;
}

OutputProjection project_output(const TensorView& context, bool head_dim, bool batched, const TensorView* wo,
                                const TensorView* bo) {
    OutputProjection o;
    o.concat = head_dim ? concat_heads(context, batched) : to_tensor(context);
    if (wo) {
        const std::size_t cols = o.concat.cols();
        if (wo->rank() != 2 || wo->shape[0] != cols)
            throw InputError("W_O is " + dims(*wo) + " but the concatenated heads have H·d_v=" + std::to_string(cols) +
                             " columns: W_O must have H·d_v rows");
        o.output = linear(o.concat.view(), wo, bo, "W_O");
    } else {
        if (bo) throw InputError("an output bias needs W_O");
        o.output = o.concat;
    }
    return o;
}

// ---- PyTorch layouts ------------------------------------------------------------------------

namespace {

// Rows [r0, r0 + n) of a 2-D view, transposed into an owning cols×n tensor.
Tensor transposed_rows(const TensorView& w, std::size_t r0, std::size_t n) {
    const std::size_t cols = w.shape[1], ld = w.strides[0];
    Tensor t(Shape{cols, n});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < cols; ++j) t.data()[j * t.row_stride() + i] = w.data[(r0 + i) * ld + j];
    return t;
}

}  // namespace

Tensor from_linear_weight(const TensorView& weight) {
    if (weight.rank() != 2)
        throw InputError("an nn.Linear weight is out×in, not " + weight.shape.text());
    return transposed_rows(weight, 0, weight.shape[0]);
}

InProjection split_in_projection(const TensorView& in_proj_weight, const TensorView* in_proj_bias) {
    const TensorView& w = in_proj_weight;
    if (w.rank() != 2 || w.shape[0] != 3 * w.shape[1])
        throw InputError("in_proj_weight is " + dims(w) + ": expected 3E×E (the q, k and v blocks stacked)");
    const std::size_t E = w.shape[1];
    InProjection p{transposed_rows(w, 0, E), transposed_rows(w, E, E), transposed_rows(w, 2 * E, E), {}, {}, {}};
    if (in_proj_bias) {
        const float* b = bias_row(in_proj_bias, 3 * E, "in_proj_weight");
        Tensor* parts[3] = {&p.bq, &p.bk, &p.bv};
        for (std::size_t k = 0; k < 3; ++k) {
            *parts[k] = Tensor(Shape{1, E});
            std::memcpy(parts[k]->data(), b + k * E, E * sizeof(float));
        }
    }
    return p;
}

}  // namespace attn
