// RoPE's pre-pass (attention/rope.hpp).
#include "attention/rope.hpp"

#include <algorithm>
#include <cmath>

#include "attn/half.hpp"
#include "attn/multihead.hpp"
#include "runtime/parallel.hpp"

namespace attn::engine {

std::vector<float> rope_inv_freq(float theta, std::size_t n, const RopeScaling& scaling) {
    std::vector<float> inv(n / 2);
    for (std::size_t k = 0; k < n / 2; ++k) {
        const float e = float(2 * k) / float(n);                           // arange(0, N, 2).float() / N
        const float power = float(std::pow(double(theta), double(e)));  // base ** e, in float32
        inv[k] = 1.0f / power;
    }
    const float f = scaling.factor;
    if (scaling.kind == RopeScalingKind::linear)
        for (float& x : inv) x = x / f;
    if (scaling.kind == RopeScalingKind::llama3) {
        // The float32 tensor arithmetic of _compute_llama3_parameters; the wavelength bounds
        // are Python floats (double).
        const double old_len = scaling.original_max_positions;
        const double low_wavelen = old_len / scaling.low_freq_factor, high_wavelen = old_len / scaling.high_freq_factor;
        for (float& x : inv) {
            const float wavelen = float(2 * M_PI) / x;  // 2 * math.pi / inv_freq
            const float scaled = wavelen > low_wavelen ? x / f : x;
            const float smooth = (float(old_len) / wavelen - scaling.low_freq_factor) /
                                 (scaling.high_freq_factor - scaling.low_freq_factor);
            const float smoothed = (1.0f - smooth) * scaled / f + smooth * scaled;
            const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
            x = medium ? smoothed : scaled;
        }
    }
    return inv;
}

RopeTable rope_table(const std::vector<float>& inv_freq, long long first, std::size_t count) {
    RopeTable t;
    t.first = first, t.half = inv_freq.size();
    t.cos.resize(count * t.half), t.sin.resize(count * t.half);
    for (std::size_t r = 0; r < count; ++r) {
        const float p = float(first + (long long)r);
        for (std::size_t k = 0; k < t.half; ++k)  // float32 angle; glibc's sincosf: both at once
            ::sincosf(p * inv_freq[k], &t.sin[r * t.half + k], &t.cos[r * t.half + k]);
    }
    return t;
}

void rope_row(const Rope& rope, const float* c, const float* s, const float* x, float* out, std::size_t d) {
    const std::size_t n = rope.dims, half = n / 2;
    if (rope.style == RopeStyle::half) {
        for (std::size_t k = 0; k < half; ++k) {
            const float x1 = x[k], x2 = x[k + half];
            const float a1 = x1 * c[k], b1 = x2 * s[k], a2 = x2 * c[k], b2 = x1 * s[k];
            out[k] = a1 - b1, out[k + half] = a2 + b2;
        }
    } else {
        for (std::size_t k = 0; k < half; ++k) {
            const float x1 = x[2 * k], x2 = x[2 * k + 1];
            const float a1 = x1 * c[k], b1 = x2 * s[k], a2 = x2 * c[k], b2 = x1 * s[k];
            out[2 * k] = a1 - b1, out[2 * k + 1] = a2 + b2;
        }
    }
    if (out != x) std::copy(x + n, x + d, out + n);
}

namespace {

// A row of an operand as float32 (float16 widened into buf).
const float* row_f32(const Operand& o, std::size_t b, std::size_t h, std::size_t t, float* buf) {
    if (o.type == ElementType::f32) return o.row(b, h, t);
    const auto* src = static_cast<const std::uint16_t*>(o.element_at(b, h)) + t * o.sT;
    for (std::size_t c = 0; c < o.d; ++c) buf[c] = half_to_float(src[c]);
    return buf;
}

}  // namespace

AttentionProblem with_rope(const AttentionProblem& p, Tensor& q, Tensor& k) {
    // Every position a query or key takes: queries at p.position(b, i), non-decreasing in i;
    // keys at 0 … Tk − 1. Units of 256 positions: the angles of the unit's positions, computed
    // once, then every Q row (each batch item and head) and K row at those positions.
    long long lo = 0, hi = (long long)p.Tk - 1;
    for (std::size_t b = 0; b < p.B && p.Tq; ++b)
        lo = std::min(lo, p.position(b, 0)), hi = std::max(hi, p.position(b, p.Tq - 1));
    const std::vector<float> inv = rope_inv_freq(p.rope.theta, p.rope.dims, p.rope.scaling);
    q = Tensor(Shape({p.B, p.q.H, p.Tq, p.dk}), Tensor::Uninitialized{});
    k = Tensor(Shape({p.k.B, p.k.H, p.Tk, p.dk}), Tensor::Uninitialized{});
    constexpr std::size_t per_unit = 256;
    const std::size_t positions = hi < lo ? 0 : std::size_t(hi - lo + 1);
    parallel_for((positions + per_unit - 1) / per_unit, [&](std::size_t u) {
        const long long P0 = lo + (long long)(u * per_unit), P1 = std::min(hi + 1, P0 + (long long)per_unit);
        const RopeTable table = rope_table(inv, P0, std::size_t(P1 - P0));
        std::vector<float> buf(p.dk);
        // The rows [i0, i1) of (b, ·) of o at positions pos(i), rotated into t.
        const auto rotate = [&](const Operand& o, Tensor& t, std::size_t b, std::size_t i0, std::size_t i1,
                                auto pos) {
            for (std::size_t h = 0; h < o.H; ++h)
                for (std::size_t i = i0; i < i1; ++i)
                    rope_row(p.rope, table.cos_at(pos(i)), table.sin_at(pos(i)), row_f32(o, b, h, i, buf.data()),
                             t.slice_data(b * o.H + h) + i * t.row_stride(), p.dk);
        };
        // A cache's keys (j < past) are rotated already: copied (widened) as they are.
        if (P1 > 0 && P0 < (long long)p.Tk)
            for (std::size_t b = 0; b < p.k.B; ++b) {
                const std::size_t j0 = std::size_t(std::max(P0, 0LL)), j1 = std::size_t(std::min(P1, (long long)p.Tk));
                const std::size_t cached = std::clamp(p.past, j0, j1);
                for (std::size_t h = 0; h < p.k.H; ++h)
                    for (std::size_t j = j0; j < cached; ++j) {
                        const float* x = row_f32(p.k, b, h, j, buf.data());
                        std::copy(x, x + p.dk, k.slice_data(b * p.k.H + h) + j * k.row_stride());
                    }
                rotate(p.k, k, b, cached, j1, [](std::size_t j) { return (long long)j; });
            }
        for (std::size_t b = 0; b < p.B; ++b) {
            const auto at = [&](std::size_t i) { return p.position(b, i); };
            // The rows whose positions are in [P0, P1), by bisection (positions non-decreasing in i).
            const auto first_at = [&](long long P) {  // the first row whose position is >= P
                std::size_t lo = 0, hi = p.Tq;
                while (lo < hi) {
                    const std::size_t mid = lo + (hi - lo) / 2;
                    (at(mid) < P ? lo = mid + 1 : hi = mid);
                }
                return lo;
            };
            const std::size_t i0 = first_at(P0), i1 = first_at(P1);
            rotate(p.q, q, b, i0, i1, at);
        }
    });
    AttentionProblem r = p;
    r.q = operand_of(q.view(), Role::queries);
    r.k = operand_of(k.view(), Role::keys);
    r.q.shape = p.q.shape, r.k.shape = p.k.shape;  // messages name the inputs as given
    r.rope = Rope{};
    return r;
}

}  // namespace attn::engine

namespace attn {

void rotated_queries_keys(const AttentionProblem& p, Tensor& q, Tensor& k) { engine::with_rope(p, q, k); }

}  // namespace attn
