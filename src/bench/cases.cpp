// attn bench: the timed cases — their shapes, work and memory, and the library call each
// one makes on seeded random inputs.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/mask_bits.hpp"
#include "attn/multihead.hpp"
#include "bench/bench.hpp"

namespace attn::bench {

const char* op_name(Op op) {
    switch (op) {
        case Op::matmul: return "matmul";
        case Op::softmax: return "softmax";
        case Op::attention: return "attention";
        case Op::mha: return "mha";
    }
    return "?";
}

std::string Case::shape() const {
    std::string s = std::to_string(m) + "x" + std::to_string(n);
    if (op == Op::softmax) return s;
    s += "x" + std::to_string(k);
    if (!batched()) return s;
    // B x H[:G] x Tq x Tk x d
    std::string heads = std::to_string(this->heads);
    if (kv_heads != this->heads) heads += ":" + std::to_string(kv_heads);
    return std::to_string(batch) + "x" + heads + "x" + s;
}

namespace {

// A case's floating-point work with the attention cells counted at `cells` of the dense ones.
double flops_at(const Case& c, double cells) {
    const double M = double(c.m), N = double(c.n), K = double(c.k), B = double(c.batch), H = double(c.heads),
                 G = double(c.kv_heads);
    if (c.op == Op::matmul) return 2.0 * M * N * K;
    if (c.op == Op::softmax) return 0.0;
    const double attention = 4.0 * B * H * M * N * K * cells;
    if (c.op == Op::attention) return attention;
    const double E = H * K;  // model width: H heads of d
    // Q, K, V projections, attention, W_O.
    return 2.0 * B * M * E * (H * K) + 2.0 * B * N * E * (2.0 * G * K) + attention + 2.0 * B * M * (H * K) * E;
}

}  // namespace

double Case::flops() const { return flops_at(*this, visible); }
double Case::dense_flops() const { return flops_at(*this, 1.0); }

double Case::bytes() const {
    const double M = double(m), N = double(n), K = double(k);
    if (op == Op::matmul) return 4.0 * (M * K + K * N + M * N);
    if (op == Op::softmax) return 4.0 * 2.0 * M * N;
    const double B = double(batch), H = double(heads), G = double(kv_heads);
    // Q, K, V, O (+ S, P per head when materialised); mha adds X, the projections and W.
    double b = 4.0 * B * (2.0 * H * M * K + (fused ? 0.0 : 3.0 * H * M * N)) + kv_row_bytes() * B * 2.0 * G * N;
    b += 4.0 * M * N * (double(mask) + double(bias));
    if (op == Op::mha) b += 4.0 * (B * (M + N) * H * K * 2.0 + 4.0 * H * K * H * K);
    return b;
}

std::string Case::variant() const {
    std::string v;
    const auto add = [&v](const std::string& part) { v += (v.empty() ? "" : "+") + part; };
    const auto side = [](std::size_t n) { return n == unbounded ? std::string() : std::to_string(n); };
    if (softcap != 0.0f) add("softcap=" + num(softcap, "%g"));
    if (window.bounded())
        add("window=" + side(window.left) + (window.right == unbounded ? "" : ":" + side(window.right)));
    if (alibi != 0.0f) add("alibi=" + num(alibi, "%g"));
    if (sinks) add("sinks");
    if (segments) add("segments=" + std::to_string(segments));
    if (rope.theta != 0.0f)
        add("rope=" + num(rope.theta, "%g") + (rope.style == RopeStyle::interleaved ? ":interleaved" : "") +
            (rope.dims ? ":dims=" + std::to_string(rope.dims) : ""));
    return v;
}

AttentionSpec spec_of(const Case& c) {
    AttentionSpec spec;
    spec.causal = !c.causal ? Causal::none : c.bottom_right ? Causal::bottom_right : Causal::top_left;
    spec.softcap = c.softcap;
    spec.window = c.window;
    spec.alibi = c.alibi;
    spec.rope = c.rope;
    if (c.sinks) {
        std::mt19937 gen(777);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (std::size_t h = 0; h < c.heads; ++h) spec.sinks.push_back(dist(gen));
    }
    for (std::size_t t = 0; c.segments && t < c.n; ++t) spec.segments.push_back((long long)(t * c.segments / c.n));
    return spec;
}

void check_case(Case& c) {
    if (c.op != Op::attention && c.op != Op::mha) return;
    // Views of the case's shapes without data: resolving reads only shapes (attn/problem.hpp).
    const auto view = [](std::size_t b, std::size_t h, std::size_t t, std::size_t d) {
        TensorView v;
        v.shape = Shape{b, h, t, d};
        v.strides = {h * t * d, t * d, d, 1};
        return v;
    };
    const TensorView q = view(c.batch, c.heads, c.m, c.k), kv = view(c.batch, c.kv_heads, c.n, c.k);
    const AttentionProblem p = resolve_attention(q, kv, kv, spec_of(c));
    double seen = 0.0, read = 0.0;
    for (std::size_t b = 0; b < p.B; ++b) {
        std::size_t first = p.Tk, last = 0;  // the hull of the rows' key ranges
        for (std::size_t i = 0; i < p.Tq; ++i) {
            const KeyRange r = p.keys(b, i);
            seen += double(r.end - r.begin);
            if (r.end > r.begin) first = std::min(first, r.begin), last = std::max(last, r.end);
        }
        read += last > first ? double(last - first) : 0.0;
    }
    const bool any = p.B * p.Tq * p.Tk != 0;
    c.visible = any ? seen / (double(p.B) * double(p.Tq) * double(p.Tk)) : 1.0;
    c.keys_read = any ? read / (double(p.B) * double(p.Tk)) : 1.0;
}

double Case::kv_element_bytes() const {
    return kv_type == ElementType::q8_0 ? double(q8_0_block_bytes) / double(q8_0_block) : double(element_size(kv_type));
}

bool Case::memory_bound() const { return op == Op::attention && fused && m <= decode_max_rows; }

double Case::kv_row_bytes() const {
    if (kv_type == ElementType::q8_0) return double((k + q8_0_block - 1) / q8_0_block * q8_0_block_bytes);
    if (kv_type == ElementType::f32) return 4.0 * double(Matrix::padded_stride(k));
    return 2.0 * double(padded_row_length(k, HalfTensor::stride_quantum));
}

double Case::moved_bytes() const {
    const double B = double(batch), H = double(heads), G = double(kv_heads), M = double(m), N = double(n), K = double(k);
    // K and V rows, Q and O, and the Tq×Tk bias (float32) or mask (bits) every head shares
    return kv_row_bytes() * B * 2.0 * G * N * keys_read + 4.0 * B * 2.0 * H * M * K + (bias ? 4.0 * M * N : 0.0) +
           (mask ? M * N / 8.0 : 0.0);
}

namespace {

Matrix random_matrix(std::size_t rows, std::size_t cols, std::mt19937& gen) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Matrix M(rows, cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) M(r, c) = dist(gen);
    return M;
}

std::shared_ptr<Tensor> random_tensor(const Shape& shape, std::mt19937& gen, float range = 1.0f) {
    std::uniform_real_distribution<float> dist(-range, range);
    auto t = std::make_shared<Tensor>(shape);
    for (std::size_t s = 0; s < t->slices(); ++s)
        for (std::size_t r = 0; r < t->rows(); ++r)
            for (std::size_t c = 0; c < t->cols(); ++c) t->slice_data(s)[r * t->row_stride() + c] = dist(gen);
    return t;
}

// A Tq×Tk mask with about one key in eight masked (0) and the rest 1, or a bias in [-1, 1].
std::shared_ptr<Tensor> random_mask(std::size_t rows, std::size_t cols, std::mt19937& gen) {
    auto t = std::make_shared<Tensor>(Shape{rows, cols});
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) t->data()[r * t->row_stride() + c] = gen() % 8 == 0 ? 0.0f : 1.0f;
    return t;
}

std::function<void()> batched_call(const Case& c, std::mt19937& gen) {
    AttentionSpec spec = spec_of(c);
    // One Tq×Tk mask / bias broadcast to every batch item and head (stride 0).
    // The mask is packed into bits here, outside the timed call, as a caller that reuses one
    // mask does (Q, K and V are made here too).
    auto mask = c.mask ? std::make_shared<const MaskBits>(random_mask(c.m, c.n, gen)->view()) : nullptr;
    auto bias = c.bias ? random_tensor({c.m, c.n}, gen) : nullptr;
    auto views = std::make_shared<std::pair<TensorView, TensorView>>(TensorView{}, bias ? bias->view() : TensorView{});
    spec.mask_bits = mask.get();
    spec.bias = bias ? &views->second : nullptr;
    AttentionWants wants;
    wants.weights = !c.fused;
    if (c.op == Op::attention && c.kv_type != ElementType::f32) {
        // The same draws as float32, rounded or quantised (K and V stay so in memory).
        auto Q = random_tensor({c.batch, c.heads, c.m, c.k}, gen);
        auto K = std::make_shared<HalfTensor>(to_kv(random_tensor({c.batch, c.kv_heads, c.n, c.k}, gen)->view(), c.kv_type));
        auto V = std::make_shared<HalfTensor>(to_kv(random_tensor({c.batch, c.kv_heads, c.n, c.k}, gen)->view(), c.kv_type));
        return [Q, K, V, spec, wants, mask, bias, views] {
            const BatchedAttention r = batched_attention(Q->view(), K->view(), V->view(), spec, wants);
            if (r.fused != !wants.weights) throw RuntimeFailure("bench: attention took an unexpected path");
        };
    }
    if (c.op == Op::attention) {
        auto Q = random_tensor({c.batch, c.heads, c.m, c.k}, gen);
        auto K = random_tensor({c.batch, c.kv_heads, c.n, c.k}, gen);
        auto V = random_tensor({c.batch, c.kv_heads, c.n, c.k}, gen);
        return [Q, K, V, spec, wants, mask, bias, views] {
            const BatchedAttention r = batched_attention(Q->view(), K->view(), V->view(), spec, wants);
            if (r.fused != !wants.weights) throw RuntimeFailure("bench: attention took an unexpected path");
        };
    }
    // mha: X (B, Tq, E) and, when Tk != Tq, a separate key/value source (B, Tk, E).
    const std::size_t E = c.heads * c.k;
    auto X = random_tensor({c.batch, c.m, E}, gen);
    auto Xkv = c.n != c.m ? random_tensor({c.batch, c.n, E}, gen) : nullptr;
    const float w = 1.0f / std::sqrt(float(E));
    auto Wq = random_tensor({E, c.heads * c.k}, gen, w), Wk = random_tensor({E, c.kv_heads * c.k}, gen, w),
         Wv = random_tensor({E, c.kv_heads * c.k}, gen, w), Wo = random_tensor({c.heads * c.k, E}, gen, w);
    const std::size_t H = c.heads, G = c.kv_heads;
    return [X, Xkv, Wq, Wk, Wv, Wo, H, G, spec, wants, mask, bias, views] {
        const TensorView q = Wq->view(), k = Wk->view(), v = Wv->view(), o = Wo->view();
        MultiheadWeights mw;
        mw.heads = H, mw.kv_heads = G;
        mw.wq = &q, mw.wk = &k, mw.wv = &v, mw.wo = &o;
        const TensorView xkv = Xkv ? Xkv->view() : TensorView{};
        const Multihead r = multihead_attention(X->view(), Xkv ? &xkv : nullptr, mw, spec, wants);
        if (r.attention.fused != !wants.weights) throw RuntimeFailure("bench: mha took an unexpected path");
    };
}

}  // namespace

std::function<void()> make_call(const Case& c) {
    std::mt19937 gen(12345);
    if (c.op == Op::matmul) {
        auto A = std::make_shared<Matrix>(random_matrix(c.m, c.k, gen));
        auto B = std::make_shared<Matrix>(random_matrix(c.k, c.n, gen));
        auto C = std::make_shared<Matrix>(c.m, c.n);
        return [A, B, C] { matmul(*A, *B, *C); };
    }
    if (c.op == Op::softmax) {
        auto S0 = std::make_shared<Matrix>(random_matrix(c.m, c.n, gen));
        auto S = std::make_shared<Matrix>(*S0);
        // Copying the input back is part of the timed call (a memcpy, small next to exp).
        return [S0, S] {
            for (std::size_t r = 0; r < S->rows(); ++r) std::copy(S0->row(r), S0->row(r) + S0->cols(), S->row(r));
            normalize_rows(*S, Normalization::softmax, MaskedRowPolicy::zero);
        };
    }
    // With a mask: the engine with the mask packed beforehand (attend() packs it in the call);
    // a variant: the engine with its spec (attend()'s options have no variants).
    if (c.batched() || c.kv_type != ElementType::f32 || c.mask || !c.variant().empty()) return batched_call(c, gen);
    auto Q = std::make_shared<Matrix>(random_matrix(c.m, c.k, gen));
    auto K = std::make_shared<Matrix>(random_matrix(c.n, c.k, gen));
    auto V = std::make_shared<Matrix>(random_matrix(c.n, c.k, gen));
    // The pipeline a user runs: attn::attend. Asking for the weights forces the materialised
    // path (Q·Kᵀ, scale/mask, softmax, ·V); the context alone takes the fused one.
    AttentionOptions opt;
    opt.score_mask.scale = default_scale(c.k);
    opt.score_mask.causal = spec_of(c).causal;
    std::shared_ptr<Matrix> bias;
    if (c.bias) bias = std::make_shared<Matrix>(random_matrix(c.m, c.n, gen));
    opt.score_mask.bias = bias.get();
    AttentionWants wants;
    wants.weights = !c.fused;
    return [Q, K, V, opt, wants, bias] {
        const AttentionResult r = attend(*Q, *K, *V, opt, wants);
        if (r.fused != !wants.weights) throw RuntimeFailure("bench: attend took an unexpected path");
    };
}

bool scalar_affordable(const Case& c) {
    return c.op == Op::softmax ? c.elements() <= 16.0 * 1024 * 1024 : c.dense_flops() <= 6e8;
}

}  // namespace attn::bench
