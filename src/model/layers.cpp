// The layers around the attention (model/layers.hpp).
#include "model/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "attention/rope.hpp"
#include "attn/error.hpp"
#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "runtime/parallel.hpp"

namespace attn::model {

MatrixView rows_of(const Tensor& t) noexcept {
    const std::size_t rows = t.rank() <= 1 ? 1 : t.shape().numel() / t.cols();
    return {t.data(), rows, t.cols(), t.row_stride()};
}

Tensor new_rows(std::size_t rows, std::size_t cols) { return Tensor(Shape({rows, cols}), Tensor::Uninitialized{}); }

Tensor linear(const MatrixView& X, const Weight& W, Layout layout, const Weight* bias) {
    const bool t = layout == Layout::linear;
    const std::size_t out_cols = t ? W.rows() : W.cols();
    Tensor Y = new_rows(X.rows, out_cols);
    if (W.type == Weight::Type::f32) {
        matmul_into(X, MatrixView{static_cast<const float*>(W.data), W.rows(), W.cols(), W.stride()}, t, Y.data(),
                    Y.row_stride());
    } else {
        matmul_into(X,
                    HalfMatrixView{static_cast<const std::uint16_t*>(W.data), W.rows(), W.cols(), W.stride(),
                                   W.type == Weight::Type::bf16},
                    t, Y.data(), Y.row_stride());
    }
    if (bias) {
        const std::vector<float> b = bias->values();
        for (std::size_t i = 0; i < X.rows; ++i) {
            float* y = Y.data() + i * Y.row_stride();
            for (std::size_t c = 0; c < out_cols; ++c) y[c] += b[c];
        }
    }
    return Y;
}

Tensor linear_named(const Weights& w, const std::string& name, const Tensor& x, std::size_t rows, std::size_t cols,
                    bool bias) {
    return linear(rows_of(x), w.get(name + ".weight", {rows, cols}), Layout::linear,
                  bias ? &w.get(name + ".bias", {rows}) : nullptr);
}

void layer_norm_named(Tensor& x, const Weights& w, const std::string& name, std::size_t width, double eps,
                      bool unit_offset) {
    layer_norm(x, w.get(name + ".weight", {width}), &w.get(name + ".bias", {width}), eps, unit_offset);
}

namespace {

// LayerNorm of each run of n columns of every row (means and variances in double), scaled by
// g and shifted by b, which hold n values (every run the same) or one per column.
void normalise_runs(Tensor& X, const std::vector<float>& g, const std::vector<float>& b, std::size_t n, double eps) {
    const MatrixView m = rows_of(X);
    if (n == 0 || m.cols % n || g.size() % n || (g.size() != n && g.size() != m.cols))
        throw std::logic_error("layer_norm: a row is no whole number of the weight's runs");
    parallel_for(m.rows, [&](std::size_t i) {
        for (std::size_t c0 = 0; c0 < m.cols; c0 += n) {
            float* x = X.data() + i * m.stride + c0;
            const std::size_t w0 = g.size() == n ? 0 : c0;
            double sum = 0, sq = 0;
            for (std::size_t c = 0; c < n; ++c) sum += x[c];
            const double mean = sum / double(n);
            for (std::size_t c = 0; c < n; ++c) sq += (x[c] - mean) * (x[c] - mean);
            const double inv = 1.0 / std::sqrt(sq / double(n) + eps);  // biased variance, as torch
            for (std::size_t c = 0; c < n; ++c) x[c] = float((x[c] - mean) * inv) * g[w0 + c] + b[w0 + c];
        }
    });
}

}  // namespace

void layer_norm(Tensor& X, const Weight& weight, const Weight* bias, double eps, bool unit_offset) {
    std::vector<float> g = weight.values();
    const std::vector<float> b = bias ? bias->values() : std::vector<float>(g.size(), 0.0f);
    if (unit_offset)  // Nemotron's LayerNorm1P: self.weight + 1
        for (float& x : g) x = 1.0f + x;
    normalise_runs(X, g, b, g.size(), eps);  // the whole row, or each head's n columns (Phi's q_layernorm)
}

void layer_norm_heads(Tensor& X, const std::vector<float>& weights, std::size_t d, double eps) {
    normalise_runs(X, weights, std::vector<float>(weights.size(), 0.0f), d, eps);
}

void rms_norm(Tensor& X, const Weight& weight, double eps, bool unit_offset) {
    const MatrixView m = rows_of(X);
    std::vector<float> g = weight.values();
    if (unit_offset)  // Gemma: output * (1.0 + self.weight.float())
        for (float& x : g) x = 1.0f + x;
    const std::size_t n = g.size();  // the whole row, or each head's n columns (Qwen3's q_norm)
    if (n == 0 || m.cols % n) throw std::logic_error("rms_norm: a row is no whole number of the weight's length");
    parallel_for(m.rows, [&](std::size_t i) {
        for (std::size_t c0 = 0; c0 < m.cols; c0 += n) {
            float* x = X.data() + i * m.stride + c0;
            double sq = 0;
            for (std::size_t c = 0; c < n; ++c) sq += double(x[c]) * x[c];
            const float inv = float(1.0 / std::sqrt(sq / double(n) + eps));  // torch.rsqrt(variance + eps)
            for (std::size_t c = 0; c < n; ++c) x[c] = g[c] * (x[c] * inv);
        }
    });
}

Tensor column_blocks(const Tensor& x, std::size_t blocks, std::size_t width, std::size_t stride, std::size_t offset) {
    const MatrixView m = rows_of(x);
    Tensor out = new_rows(m.rows, blocks * width);
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t b = 0; b < blocks; ++b) {
            const float* from = m.row(i) + b * stride + offset;
            std::copy(from, from + width, out.data() + i * out.row_stride() + b * width);
        }
    return out;
}

void add_rows(Tensor& x, const Tensor& y) {
    const MatrixView m = rows_of(x);
    for (std::size_t i = 0; i < m.rows; ++i) {
        float* a = x.data() + i * m.stride;
        const float* b = y.data() + i * y.row_stride();
        for (std::size_t c = 0; c < m.cols; ++c) a[c] += b[c];
    }
}

void scale_rows(Tensor& x, float m) {
    const MatrixView v = rows_of(x);
    for (std::size_t i = 0; i < v.rows; ++i) {
        float* a = x.data() + i * v.stride;
        for (std::size_t c = 0; c < v.cols; ++c) a[c] *= m;
    }
}

void clamp_rows(Tensor& x, float limit) {
    const MatrixView v = rows_of(x);
    for (std::size_t i = 0; i < v.rows; ++i) {
        float* a = x.data() + i * v.stride;
        for (std::size_t c = 0; c < v.cols; ++c) a[c] = std::min(std::max(a[c], -limit), limit);
    }
}

namespace {

// In float32, as torch computes them (GELU(approximate='none') with erf; HF's NewGELUActivation).
float act(float x, ModelConfig::Activation a) {
    using A = ModelConfig::Activation;
    switch (a) {
        case A::gelu_erf: return 0.5f * x * (1.0f + std::erf(x * float(M_SQRT1_2)));
        case A::gelu_tanh: {
            const float u = float(std::sqrt(2.0 / M_PI)) * (x + 0.044715f * x * x * x);
            return 0.5f * x * (1.0f + std::tanh(u));
        }
        case A::quick_gelu: return x / (1.0f + std::exp(-1.702f * x));  // x·sigmoid(1.702x)
        case A::relu: return x > 0 ? x : 0.0f;
        case A::relu2: {  // ReLUSquaredActivation: torch.square(relu(x))
            const float r = x > 0 ? x : 0.0f;
            return r * r;
        }
        case A::silu: return x / (1.0f + std::exp(-x));
        case A::tanh: return std::tanh(x);
    }
    return x;
}

}  // namespace

void activate(Tensor& X, ModelConfig::Activation a) {
    const MatrixView m = rows_of(X);
    parallel_for(m.rows, [&](std::size_t i) {
        float* x = X.data() + i * m.stride;
        for (std::size_t c = 0; c < m.cols; ++c) x[c] = act(x[c], a);
    });
}

void gated(Tensor& gate, const Tensor& up, ModelConfig::Activation a) {
    const MatrixView m = rows_of(gate);
    parallel_for(m.rows, [&](std::size_t i) {
        float* g = gate.data() + i * m.stride;
        const float* u = up.data() + i * up.row_stride();
        for (std::size_t c = 0; c < m.cols; ++c) g[c] = act(g[c], a) * u[c];
    });
}

Tensor gated_halves(const Tensor& gate_up, ModelConfig::Activation a) {
    const MatrixView m = rows_of(gate_up);
    const std::size_t F = m.cols / 2;
    Tensor out = new_rows(m.rows, F);
    parallel_for(m.rows, [&](std::size_t i) {
        const float* g = gate_up.data() + i * m.stride;
        float* o = out.data() + i * out.row_stride();
        for (std::size_t c = 0; c < F; ++c) o[c] = act(g[c], a) * g[F + c];
    });
    return out;
}

void embed(Tensor& out, const Weight& table, const std::vector<std::int64_t>& ids, bool add) {
    std::vector<float> row(table.cols());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        table.finite_row(std::size_t(ids[i]), row.data());
        float* o = out.data() + i * out.row_stride();
        for (std::size_t c = 0; c < row.size(); ++c) o[c] = add ? o[c] + row[c] : row[c];
    }
}

TensorView heads_view(const Tensor& rows, std::size_t batch, std::size_t tokens, std::size_t col0, std::size_t heads,
                      std::size_t d, std::size_t head_stride) {
    TensorView v;
    const std::size_t ld = rows.row_stride();
    v.data = rows.data() + col0;
    v.shape = Shape({batch, heads, tokens, d});
    v.strides[0] = tokens * ld, v.strides[1] = head_stride ? head_stride : d, v.strides[2] = ld, v.strides[3] = 1;
    return v;
}

Rope rope_for_tokens(const Rope& config_rope, std::size_t dims, std::size_t tokens, const std::string& text) {
    Rope rope = config_rope;
    rope.dims = dims;
    rope = engine::rope_at_length(rope, tokens);  // dynamic NTK: positions 0 … T − 1; longrope's factors
    const std::vector<float> inv = engine::rope_inv_freq(rope.theta, dims, rope.scaling);
    for (std::size_t k = 0; k < inv.size(); ++k)
        if (!(inv[k] > 0) || std::isinf(inv[k])) {
            const bool dynamic = config_rope.scaling.kind == RopeScalingKind::dynamic;
            char detail[80];
            std::snprintf(detail, sizeof detail, " %zu %g in float32 (with a base of %g)", k, double(inv[k]), double(rope.theta));
            throw InputError(text + (dynamic ? " over " + std::to_string(tokens) + " tokens" : "") +
                             " makes RoPE's inverse frequency" + detail + ": expected finite numbers > 0");
        }
    return rope;
}

Tensor self_attention(const TensorView& Q, const TensorView& K, const TensorView& V, const AttentionSpec& spec,
                      float* weights, std::size_t weights_stride) {
    AttentionWants wants;
    wants.weights = weights != nullptr;
    wants.context = true;
    AttentionSpec s = spec;
    s.head_axis = HeadAxis::always;
    BatchedAttention r = batched_attention(Q, KVView(K), KVView(V), s, wants);
    if (weights) {
        const Tensor& w = r.weights;  // (B, H, T, T)
        const std::size_t T = w.cols();
        for (std::size_t sl = 0; sl < w.slices(); ++sl)
            for (std::size_t i = 0; i < T; ++i)
                std::memcpy(weights + (sl * T + i) * weights_stride, w.slice_data(sl) + i * w.row_stride(),
                            T * sizeof(float));
    }
    return concat_heads(r.context.view(), /*batched=*/true);
}

}  // namespace attn::model
