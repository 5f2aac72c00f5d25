// An independent float64 implementation of masked scaled dot-product attention, written
// from the definition for tests only (it shares no code with the library). In ONNX
// Attention's order: z = scale·q·k; the softcap c·tanh(z/c); + ALiBi + bias; masked cells (causal,
// window, mask, -inf bias, documents) excluded; softmax (with a sink in the denominator); ·V. Spec::scores replaces q·k by another score
// function's values.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "attn/matrix.hpp"

namespace test_ref {

using Grid = std::vector<std::vector<double>>;

inline attn::Matrix random_matrix(std::size_t r, std::size_t c, std::mt19937& rng, double sd = 1.0) {
    std::normal_distribution<float> dist(0.0f, float(sd));
    attn::Matrix m(r, c);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) m(i, j) = dist(rng);
    return m;
}

struct Spec {
    double scale = 1.0;
    int causal = 0;  // 0 none, 1 top-left, 2 bottom-right
    // The causal offset (ONNX's): the query sits at p = i + offset, causal keys j <= p. Unset:
    // 0, or Tk − Tq bottom-right.
    std::optional<long long> offset;
    const attn::Matrix* mask = nullptr;
    const attn::Matrix* bias = nullptr;
    int policy = 0;  // 0 zero, 1 nan, 2 uniform
    double softcap = 0;  // 0: none
    // ONNX's window: the query at position p (i, or i + Tk − Tq bottom-right) sees keys
    // p − left ≤ j ≤ p + right; -1 = unbounded.
    long long left = -1, right = -1;
    // ALiBi (BLOOM, Press et al.): slope·(j − p) added after the softcap, before the bias, p as
    // for the window; 0: none.
    double alibi_slope = 0;
    // The score function's s(q_i, k_j) (general, additive, cosine), in place of q·k when set.
    const std::vector<std::vector<double>>* scores = nullptr;
    // gpt-oss's attention sink: one more logit column in the softmax, dropped afterwards (it
    // carries no value); -inf: none.
    double sink = -INFINITY;
    // FlexAttention's document mask: one id per key position; query i, at position p, sees key j
    // only when ids[p] == ids[j] (none when p is not a key position); null: none.
    const std::vector<long long>* documents = nullptr;
};

inline double position(const Spec& s, std::size_t i, std::size_t Tq, std::size_t Tk) {
    if (s.offset) return double(i) + double(*s.offset);
    return double(i) + (s.causal == 2 ? double(Tk) - double(Tq) : 0.0);
}

inline bool allowed(const Spec& s, std::size_t i, std::size_t j, std::size_t Tq, std::size_t Tk) {
    const double p = position(s, i, Tq, Tk);
    if (s.causal != 0 && double(j) > p) return false;
    if (s.left >= 0 && double(j) < p - double(s.left)) return false;
    if (s.right >= 0 && double(j) > p + double(s.right)) return false;
    if (s.mask && (*s.mask)(i, j) == 0.0f) return false;
    if (s.bias && std::isinf((*s.bias)(i, j))) return false;
    if (s.documents && (p < 0 || p >= double(Tk) || (*s.documents)[std::size_t(p)] != (*s.documents)[j])) return false;
    return true;
}

// Returns the weights; context written to *context when given.
inline Grid attention(const attn::Matrix& Q, const attn::Matrix& K, const attn::Matrix& V, const Spec& s,
                      Grid* context = nullptr, std::size_t* masked_rows = nullptr) {
    const std::size_t Tq = Q.rows(), Tk = K.rows(), d = Q.cols(), dv = V.cols();
    Grid W(Tq, std::vector<double>(Tk, 0.0));
    if (context) context->assign(Tq, std::vector<double>(dv, 0.0));
    std::size_t masked = 0;
    for (std::size_t i = 0; i < Tq; ++i) {
        std::vector<double> z(Tk, -INFINITY);
        double mx = -INFINITY;
        for (std::size_t j = 0; j < Tk; ++j) {
            if (!allowed(s, i, j, Tq, Tk)) continue;
            double dot = 0;
            if (s.scores) dot = (*s.scores)[i][j];
            else
                for (std::size_t p = 0; p < d; ++p) dot += double(Q(i, p)) * double(K(j, p));
            z[j] = s.scale * dot;
            if (s.softcap > 0) z[j] = s.softcap * std::tanh(z[j] / s.softcap);
            z[j] += s.alibi_slope * (double(j) - position(s, i, Tq, Tk));
            z[j] += s.bias ? double((*s.bias)(i, j)) : 0.0;
            mx = std::max(mx, z[j]);
        }
        if (s.sink != -INFINITY) {
            // gpt-oss: concatenate the sink column, softmax, drop it. The row's max includes the
            // sink, so a row with every key masked gets weights exp(-inf) = 0 (context 0).
            const double m = std::max(mx, s.sink);
            double sum = std::exp(s.sink - m);
            for (std::size_t j = 0; j < Tk; ++j) sum += z[j] == -INFINITY ? 0.0 : std::exp(z[j] - m);
            for (std::size_t j = 0; j < Tk; ++j) W[i][j] = z[j] == -INFINITY ? 0.0 : std::exp(z[j] - m) / sum;
        } else if (mx == -INFINITY) {
            ++masked;
            const double fill = s.policy == 0 ? 0.0 : s.policy == 1 ? NAN : 1.0 / double(Tk);
            for (auto& w : W[i]) w = fill;
        } else {
            double sum = 0;
            for (std::size_t j = 0; j < Tk; ++j) sum += z[j] == -INFINITY ? 0.0 : std::exp(z[j] - mx);
            for (std::size_t j = 0; j < Tk; ++j) W[i][j] = z[j] == -INFINITY ? 0.0 : std::exp(z[j] - mx) / sum;
        }
        if (context)
            for (std::size_t c = 0; c < dv; ++c) {
                double acc = 0;
                for (std::size_t j = 0; j < Tk; ++j) acc += W[i][j] * double(V(j, c));
                (*context)[i][c] = acc;
            }
    }
    if (masked_rows) *masked_rows = masked;
    return W;
}

// Largest |a - b| relative to (1 + |b|); NaN must match NaN.
inline double max_rel_error(const attn::Matrix& a, const Grid& b) {
    double worst = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
        for (std::size_t j = 0; j < b[i].size(); ++j) {
            if (std::isnan(b[i][j])) {
                if (!std::isnan(a(i, j))) return INFINITY;
                continue;
            }
            const double e = std::fabs(double(a(i, j)) - b[i][j]) / (1.0 + std::fabs(b[i][j]));
            if (!(e <= worst)) worst = e;
        }
    return worst;
}

}  // namespace test_ref
