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

std::string cols_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " column" : " columns"); }

// A bias of n values: a vector of n, or one row of n.
bool bias_fits(const Shape& b, std::size_t n) {
    return (b.rank() == 1 && b[0] == n) || (b.rank() == 2 && b[0] == 1 && b[1] == n);
}

}  // namespace

void check_embeddings(const Shape& x, const Shape& kv) {
    if (x.rank() < 2 || x.rank() > 3)
        throw ShapeError(Role::embeddings, "rank", x.rank(), x.rank() < 2 ? 2 : 3, Role::embeddings,
                         "the embeddings X " + x.text() + " have " + std::to_string(x.rank()) +
                             " dimensions: expected T×D or B×T×D");
    if (kv.rank() == 0) return;
    if (kv.rank() != x.rank())
        throw ShapeError(Role::kv_embeddings, "rank", kv.rank(), x.rank(), Role::embeddings,
                         "the key/value embeddings " + kv.text() + " and X " + x.text() +
                             " must both be T×D, or both B×T×D");
    if (kv.rank() == 3 && kv[0] != x[0])
        throw ShapeError(Role::kv_embeddings, "batch", kv[0], x[0], Role::embeddings,
                         "the key/value embeddings have " + std::to_string(kv[0]) + " batch items but X has " +
                             std::to_string(x[0]));
}

ProjectionShapes resolve_projections(const ProjectionInputs& in) {
    check_embeddings(in.x, in.kv);
    const Shape& kv = in.kv.rank() ? in.kv : in.x;
    ProjectionShapes p;
    p.D = in.x.back(1), p.D_kv = kv.back(1);
    const struct {
        const Shape* w;
        Role role;
        std::size_t rows;
        const char* source;
    } weights[] = {{in.wq, Role::wq, p.D, "X"}, {in.wk, Role::wk, p.D_kv, "the key/value source"},
                   {in.wv, Role::wv, p.D_kv, "the key/value source"}};
    for (const auto& w : weights)
        if (w.w && (w.w->rank() != 2 || (*w.w)[0] != w.rows))
            throw ShapeError(w.role, "rows", w.w->rank() == 2 ? (*w.w)[0] : 0, w.rows,
                             w.role == Role::wq ? Role::embeddings : Role::kv_embeddings,
                             std::string(role_name(w.role)) + " is " + w.w->dims_text() + " but " + w.source +
                                 " has D=" + std::to_string(w.rows) + " columns: a projection must have D rows");
    const std::size_t H = in.heads, G = in.kv_heads ? in.kv_heads : in.heads;
    p.q_cols = in.wq ? in.wq->back(1) : p.D;
    p.k_cols = in.wk ? in.wk->back(1) : p.D_kv;
    p.v_cols = in.wv ? in.wv->back(1) : p.D_kv;
    if (H == 0 || p.q_cols % H != 0)
        throw ShapeError(Role::queries, "head columns", p.q_cols, H, Role::queries,
                         "the query projection gives " + cols_text(p.q_cols) + ", not a multiple of " +
                             std::to_string(H) + " query heads (heads are column blocks)");
    p.d_k = p.q_cols / H;
    if (G == 0 || p.k_cols != G * p.d_k)
        throw ShapeError(Role::keys, "d_k", p.k_cols, G * p.d_k, Role::queries,
                         "the key projection gives " + cols_text(p.k_cols) + " but " + std::to_string(G) +
                             " key/value heads of d_k=" + std::to_string(p.d_k) + " need " +
                             std::to_string(G * p.d_k));
    if (p.v_cols % G != 0)
        throw ShapeError(Role::values, "head columns", p.v_cols, G, Role::values,
                         "the value projection gives " + cols_text(p.v_cols) + ", not a multiple of " +
                             std::to_string(G) + " key/value heads");
    p.d_v = p.v_cols / G;
    const struct {
        const Shape* b;
        Role role, of;
        std::size_t n;
    } biases[] = {{in.bq, Role::bq, Role::queries, p.q_cols}, {in.bk, Role::bk, Role::keys, p.k_cols},
                  {in.bv, Role::bv, Role::values, p.v_cols}};
    for (const auto& b : biases)
        if (b.b && !bias_fits(*b.b, b.n))
            throw ShapeError(b.role, "length", b.b->back(1), b.n, b.of,
                             std::string(role_name(b.role)) + " is " + b.b->dims_text() + ": expected one row of " +
                                 std::to_string(b.n) + " values, one per column of its projection");
    return p;
}

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

void check_cache(const Shape& past, std::size_t batch, std::size_t heads, std::size_t d, Role role) {
    const std::size_t want[4] = {batch, heads, past.rank() == 4 ? past[2] : 0, d};
    const char* dims[4] = {"batch", "heads", "length", role == Role::past_keys ? "d_k" : "d_v"};
    if (past.rank() != 4)
        throw ShapeError(role, "rank", past.rank(), 4, role,
                         std::string("the ") + role_name(role) + " " + past.text() + " have " +
                             std::to_string(past.rank()) + " dimensions: a cache is (B, G, P, d)");
    for (std::size_t i : {0, 1, 3})
        if (past[i] != want[i])
            throw ShapeError(role, dims[i], past[i], want[i], role == Role::past_keys ? Role::keys : Role::values,
                             std::string("the ") + role_name(role) + " are " + past.text() + " but the new " +
                                 (role == Role::past_keys ? "keys" : "values") + " have " + std::to_string(want[i]) +
                                 " " + (i == 0 ? "batch items" : i == 1 ? "heads" : "columns per head") +
                                 ": a cache is (B, G, P, d) as the new ones");
}

Tensor present_cache(const KVView& past, const Tensor& projected, std::size_t heads, Role role) {
    const bool batched = projected.rank() == 3;
    const std::size_t B = batched ? projected.shape()[0] : 1, T = projected.rows(), d = projected.cols() / heads;
    check_cache(past.shape, B, heads, d, role);
    const std::size_t P = past.shape[2];
    Tensor out(batched ? Shape{B, heads, P + T, d} : Shape{heads, P + T, d}, Tensor::Uninitialized{});
    const Tensor old = to_float(past);  // float16 widened (float32 copied: one pass over the cache)
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t g = 0; g < heads; ++g) {
            float* dst = out.slice_data(b * heads + g);
            const float* src = old.slice_data(b * heads + g);
            for (std::size_t t = 0; t < P; ++t) std::memcpy(dst + t * out.row_stride(), src + t * old.row_stride(), d * sizeof(float));
            for (std::size_t t = 0; t < T; ++t)
                std::memcpy(dst + (P + t) * out.row_stride(), projected.slice_data(b) + t * projected.row_stride() + g * d,
                            d * sizeof(float));
        }
    return out;
}

Multihead multihead_attention(const TensorView& X, const TensorView* X_kv, const MultiheadWeights& w,
                              const AttentionSpec& spec, const AttentionWants& wants, const KVCache* past) {
    const TensorView& Xkv = X_kv ? *X_kv : X;
    const std::size_t H = w.heads, G = w.kv_heads ? w.kv_heads : w.heads;
    if (H == 0 || G == 0 || H % G != 0)
        throw InputError(std::to_string(H) + " query heads cannot share " + std::to_string(G) +
                         " key/value heads: the query heads must be a multiple of the key/value heads");
    ProjectionInputs shapes;
    shapes.x = X.shape, shapes.kv = X_kv ? X_kv->shape : Shape{};
    const auto shape_of = [](const TensorView* v) { return v ? &v->shape : nullptr; };
    shapes.wq = shape_of(w.wq), shapes.wk = shape_of(w.wk), shapes.wv = shape_of(w.wv);
    shapes.bq = shape_of(w.bq), shapes.bk = shape_of(w.bk), shapes.bv = shape_of(w.bv);
    shapes.heads = H, shapes.kv_heads = G;
    resolve_projections(shapes);
    Multihead m;
    m.queries = linear(X, w.wq, w.bq, "W_q");
    m.keys = linear(Xkv, w.wk, w.bk, "W_k");
    m.values = linear(Xkv, w.wv, w.bv, "W_v");
    AttentionSpec s = spec;
    // A projection's heads are always an axis of the inputs; the results keep it unless the
    // caller asked for none (one head, results without a head dimension).
    if (s.head_axis == HeadAxis::by_rank) s.head_axis = HeadAxis::always;
    AttentionWants inner = wants;
    inner.context = true;
    if (past) {  // the present cache: past ++ the new keys and values, per head
        m.present_keys = present_cache(past->k, m.keys, G, Role::past_keys);
        m.present_values = present_cache(past->v, m.values, G, Role::past_values);
        if (past->k.shape[2] != past->v.shape[2])
            throw ShapeError(Role::past_values, "length", past->v.shape[2], past->k.shape[2], Role::past_keys,
                             std::to_string(past->k.shape[2]) + " cached keys but " + std::to_string(past->v.shape[2]) +
                                 " cached values: every key needs a value");
        s.past = past->k.shape[2];
    }
    // The keys and values as float32, per head: with a cache, the present cache.
    const TensorView keys = past ? m.present_keys.view() : split_heads(m.keys, G);
    const TensorView values = past ? m.present_values.view() : split_heads(m.values, G);
    if (w.kv_type != ElementType::f32) {  // kept as engines keep them (the cache too: stored again)
        const auto stored = [&](const TensorView& t, const char* what) {
            try {
                return to_kv(t, w.kv_type);
            } catch (const InputError& e) {
                throw InputError(std::string(past ? "the present " : "the projected ") + what + ": " + e.what());
            }
        };
        // With RoPE, K is kept so after its rotation (as read until then), as engines cache it.
        if (s.rope.theta != 0.0f) s.rope.keys_as = w.kv_type;
        else m.stored_keys = stored(keys, "keys");
        m.stored_values = stored(values, "values");
        const KVView k = s.rope.theta == 0.0f ? m.stored_keys.view() : KVView(keys);
        m.problem = resolve_attention(split_heads(m.queries, H), k, m.stored_values.view(), s);
    } else {
        m.problem = resolve_attention(split_heads(m.queries, H), keys, values, s);
    }
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

std::size_t fused_projection_width(std::size_t rows, std::size_t cols) noexcept {
    return rows == 3 * cols ? cols : cols == 3 * rows ? rows : 0;
}

InProjection split_in_projection(const TensorView& in_proj_weight, const TensorView* in_proj_bias) {
    const TensorView& w = in_proj_weight;
    const std::size_t E = w.rank() == 2 ? fused_projection_width(w.shape[0], w.shape[1]) : 0;
    if (E == 0)
        throw InputError("in_proj_weight is " + dims(w) +
                         ": expected 3E×E (the q, k and v blocks stacked, nn.Linear layout) or E×3E (side by side, x·W layout)");
    const bool linear = w.shape[0] == 3 * E;
    // Conv1D: columns [kE, (k+1)E) are already in×out.
    const auto columns = [&](std::size_t c0) {
        Tensor t(Shape{E, E});
        for (std::size_t r = 0; r < E; ++r) std::memcpy(t.data() + r * t.row_stride(), w.data + r * w.strides[0] + c0, E * sizeof(float));
        return t;
    };
    InProjection p = linear ? InProjection{transposed_rows(w, 0, E), transposed_rows(w, E, E), transposed_rows(w, 2 * E, E), {}, {}, {}}
                            : InProjection{columns(0), columns(E), columns(2 * E), {}, {}, {}};
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
