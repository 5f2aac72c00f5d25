// RoPE's pre-pass (attention/rope.hpp).
#include "attention/rope.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/multihead.hpp"
#include "runtime/parallel.hpp"

namespace attn::engine {

std::vector<float> rope_inv_freq(float theta, std::size_t n, const RopeScaling& scaling) {
    std::vector<float> inv(n / 2), power(n / 2);
    for (std::size_t k = 0; k < n / 2; ++k) {
        const float e = float(2 * k) / float(n);                  // arange(0, N, 2).float() / N
        power[k] = float(std::pow(double(theta), double(e)));  // base ** e, in float32
        inv[k] = 1.0f / power[k];
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
    if (scaling.kind == RopeScalingKind::yarn) {
        // _compute_yarn_parameters: the ramp's bounds in Python floats, its values and the blend
        // in float32 tensor arithmetic.
        const double base = theta, dim = double(n), old_len = scaling.original_max_positions;
        const auto dim_turning = [&](double rotations) {  // find_correction_dim
            return dim * std::log(old_len / (rotations * 2 * M_PI)) / (2 * std::log(base));
        };
        double low = dim_turning(scaling.beta_fast), high = dim_turning(scaling.beta_slow);
        if (scaling.truncate) low = std::floor(low), high = std::ceil(high);
        low = std::max(low, 0.0), high = std::min(high, dim - 1);
        if (low == high) high += 0.001;  // linear_ramp_factor's guard against a zero width
        for (std::size_t k = 0; k < inv.size(); ++k) {
            const float ramp = std::clamp((float(k) - float(low)) / float(high - low), 0.0f, 1.0f);
            const float extrapolated = 1.0f - ramp;  // inv_freq_extrapolation_factor
            const float interpolation = 1.0f / (f * power[k]), extrapolation = inv[k];
            const float a = interpolation * (1.0f - extrapolated), b = extrapolation * extrapolated;
            inv[k] = a + b;
        }
    }
    if (scaling.kind == RopeScalingKind::longrope) {
        // _compute_longrope_parameters: 1.0 / (ext_factors * base ** e), in float32
        if (scaling.ext_factors.size() != inv.size())
            throw std::logic_error("rope_inv_freq: longrope needs one factor per frequency");
        for (std::size_t k = 0; k < inv.size(); ++k) inv[k] = 1.0f / (scaling.ext_factors[k] * power[k]);
    }
    if (scaling.kind == RopeScalingKind::dynamic)
        throw std::logic_error("rope_inv_freq: dynamic RoPE needs the sequence's length (rope_at_length)");
    return inv;
}

Rope rope_at_length(Rope rope, std::size_t positions) {
    RopeScaling& s = rope.scaling;
    // longrope_frequency_update: long_factor for positions 0 … T − 1 with T > the original length
    if (s.kind == RopeScalingKind::longrope && float(positions) > s.original_max_positions) s.ext_factors = s.long_factor;
    if (s.kind != RopeScalingKind::dynamic) return rope;
    // _compute_dynamic_ntk_parameters with seq_len = max(positions, max_position_embeddings):
    // base * ((factor * seq_len / max) - (factor - 1)) ** (dim / (dim - 2)), in float32, as
    // dynamic_rope_update's seq_len is a tensor (max(position_ids) + 1); the Python floats
    // factor - 1 and dim / (dim - 2) rounded to float32 as torch takes them.
    const float max = s.original_max_positions, seq = std::max(float(positions), max), f = s.factor;
    const double dim = double(rope.dims);
    const float grown = f * seq / max - float(double(f) - 1.0);
    rope.theta = rope.theta * std::pow(grown, float(dim / (dim - 2)));
    s = RopeScaling{};
    return rope;
}

void fill_rope_table(RopeTable& t, const std::vector<float>& inv_freq, long long p0, long long p1) {
    for (long long pos = p0; pos < p1; ++pos) {
        const float p = float(pos);
        float* c = t.cos.data() + std::size_t(pos - t.first) * t.half;
        float* s = t.sin.data() + std::size_t(pos - t.first) * t.half;
        for (std::size_t k = 0; k < t.half; ++k)  // float32 angle; glibc's sincosf: both at once
            ::sincosf(p * inv_freq[k], &s[k], &c[k]);
        if (t.scale != 1.0f)  // HF: emb.cos() * attention_scaling, rounded apart
            for (std::size_t k = 0; k < t.half; ++k) c[k] *= t.scale, s[k] *= t.scale;
    }
}

RopeTable rope_table(const std::vector<float>& inv_freq, long long first, std::size_t count, float scale) {
    RopeTable t;
    t.first = first, t.half = inv_freq.size(), t.scale = scale;
    t.cos.resize(count * t.half), t.sin.resize(count * t.half);
    fill_rope_table(t, inv_freq, first, first + (long long)count);
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

// A row of an operand as float32 (float16, bfloat16 or q8_0 widened into buf).
const float* row_f32(const Operand& o, std::size_t b, std::size_t h, std::size_t t, float* buf) {
    if (o.type == ElementType::f32) return o.row(b, h, t);
    const auto* row = static_cast<const char*>(o.element_at(b, h)) + storage_bytes(o.type, t * o.sT);
    const auto* src = reinterpret_cast<const std::uint16_t*>(row);
    for (std::size_t c = 0; c < o.d; ++c)
        buf[c] = o.type == ElementType::f16    ? half_to_float(src[c])
                 : o.type == ElementType::bf16 ? bfloat16_to_float(src[c])
                                               : dequantize_q8_0(reinterpret_cast<const unsigned char*>(row), c);
    return buf;
}

// Rows of a rotated Q or K: slice s = b·H + h, rows ld floats apart (64-byte aligned).
struct Rows {
    float* data;
    std::size_t T, ld;
    float* row(std::size_t s, std::size_t i) const { return data + (s * T + i) * ld; }
};

// The angles' cos and sin of the last call, kept by the calling thread for the next call with
// the same frequencies and positions in their range (a model's layers: HF's rotary embedding
// computes cos and sin once per forward for every layer), up to 16 MiB. They are most of
// the rotation's cost (T=4096 d=64: glibc's sincosf 0.85 ms, the rotation of Q and K 0.31 ms).
struct KeptAngles {
    std::vector<float> inv;  // the frequencies they are for (and table.scale)
    RopeTable table;
    bool complete = false;  // every position of the table filled
    bool covers(const std::vector<float>& f, float scale, long long lo, long long hi) const {
        return complete && inv == f && table.scale == scale && table.first <= lo &&
               hi < table.first + (long long)(table.cos.size() / std::max<std::size_t>(table.half, 1));
    }
};
thread_local KeptAngles kept_angles;
constexpr std::size_t kept_angle_floats = std::size_t(4) << 20;  // cos and sin: 16 MiB

// The positions queries and keys take, as disjoint intervals [first, end) in order: keys at
// 0 … Tk − 1, each batch item's queries from p.position(b, 0) to p.position(b, Tq − 1) (a
// --causal-offset of 2^31 puts them far from the keys: the positions between are never visited).
std::vector<std::pair<long long, long long>> taken_positions(const AttentionProblem& p) {
    std::vector<std::pair<long long, long long>> spans;
    if (p.Tk) spans.emplace_back(0, (long long)p.Tk);
    for (std::size_t b = 0; b < p.B && p.Tq; ++b) spans.emplace_back(p.position(b, 0), p.position(b, p.Tq - 1) + 1);
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<long long, long long>> merged;
    for (const auto& s : spans)
        if (!merged.empty() && s.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, s.second);
        else
            merged.push_back(s);
    return merged;
}

// Q and K of p rotated (a cache's keys copied as they are) into q and k; row padding zeroed.
// Every position a query or key takes (taken_positions): queries at p.position(b, i),
// non-decreasing in i; keys at 0 … Tk − 1, of which past … Tk − 1 are rotated. Units of 256
// positions: the angles of the unit's positions (computed once, or kept from the last call),
// then every Q row (each batch item and head) and K row at those positions.
void rotate_into(const AttentionProblem& p, const Rows& q, const Rows& k) {
    long long hi = (long long)p.Tk - 1, first_rotated = (long long)p.past;  // past <= Tk
    for (std::size_t b = 0; b < p.B && p.Tq; ++b) {
        hi = std::max(hi, p.position(b, p.Tq - 1));
        first_rotated = std::min(first_rotated, p.position(b, 0));
    }
    constexpr std::size_t per_unit = 256;
    const std::vector<std::pair<long long, long long>> spans = taken_positions(p);
    std::vector<std::pair<long long, long long>> units;  // [P0, P1) within a span
    for (const auto& [first, end] : spans)
        for (long long P0 = first; P0 < end; P0 += (long long)per_unit)
            units.emplace_back(P0, std::min(end, P0 + (long long)per_unit));
    const std::vector<float> inv = rope_inv_freq(p.rope.theta, p.rope.dims, p.rope.scaling);
    // The angles of [first_rotated, hi]: the thread's kept table when it covers them or can
    // hold them (filled below: only when the positions leave no gap), else a table per unit.
    const std::size_t angles = hi < first_rotated ? 0 : std::size_t(hi - first_rotated + 1) * inv.size();
    KeptAngles* kept = 2 * angles <= kept_angle_floats && spans.size() <= 1 ? &kept_angles : nullptr;
    const float scale = p.rope.scaling.attention_factor;
    const bool fill = kept && !kept->covers(inv, scale, first_rotated, hi);
    if (fill) {
        kept->complete = false, kept->inv = inv;
        kept->table.first = first_rotated, kept->table.half = inv.size(), kept->table.scale = scale;
        kept->table.cos.resize(angles), kept->table.sin.resize(angles);
    }
    parallel_for(units.size(), [&](std::size_t u) {
        const auto [P0, P1] = units[u];
        const long long A0 = std::max(P0, first_rotated);  // the unit's positions with rotated rows
        RopeTable own;
        if (!kept && A0 < P1) own = rope_table(inv, A0, std::size_t(P1 - A0), scale);
        if (fill && A0 < P1) fill_rope_table(kept->table, inv, A0, P1);
        const RopeTable& table = kept ? kept->table : own;
        std::vector<float> buf(p.dk);
        const auto pad = [&](float* out, std::size_t ld) { std::fill(out + p.dk, out + ld, 0.0f); };
        // The rows [i0, i1) of (b, ·) of o at positions pos(i), rotated into t.
        const auto rotate = [&](const Operand& o, const Rows& t, std::size_t b, std::size_t i0, std::size_t i1,
                                auto pos) {
            for (std::size_t h = 0; h < o.H; ++h)
                for (std::size_t i = i0; i < i1; ++i) {
                    float* out = t.row(b * o.H + h, i);
                    rope_row(p.rope, table.cos_at(pos(i)), table.sin_at(pos(i)), row_f32(o, b, h, i, buf.data()),
                             out, p.dk);
                    pad(out, t.ld);
                }
        };
        // A cache's keys (j < past) are rotated already: copied (widened) as they are.
        if (P1 > 0 && P0 < (long long)p.Tk)
            for (std::size_t b = 0; b < p.k.B; ++b) {
                const std::size_t j0 = std::size_t(std::max(P0, 0LL)), j1 = std::size_t(std::min(P1, (long long)p.Tk));
                const std::size_t cached = std::clamp(p.past, j0, j1);
                for (std::size_t h = 0; h < p.k.H; ++h)
                    for (std::size_t j = j0; j < cached; ++j) {
                        const float* x = row_f32(p.k, b, h, j, buf.data());
                        float* out = k.row(b * p.k.H + h, j);
                        std::copy(x, x + p.dk, out);
                        pad(out, k.ld);
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
        // The unit's key rows as the cache keeps them (Rope::keys_as), the rotated and the cached.
        if (p.rope.keys_as != ElementType::f32 && P1 > 0 && P0 < (long long)p.Tk)
            for (std::size_t b = 0; b < p.k.B; ++b)
                for (std::size_t h = 0; h < p.k.H; ++h)
                    for (auto j = std::size_t(std::max(P0, 0LL)); j < std::size_t(std::min(P1, (long long)p.Tk)); ++j)
                        try {
                            round_as(k.row(b * p.k.H + h, j), p.dk, p.rope.keys_as);
                        } catch (const InputError& e) {
                            throw InputError("key " + std::to_string(j) + " after RoPE's rotation: " + e.what());
                        }
    });
    if (fill) kept->complete = true;
}

// The shapes of the rotated Q (B, H_q, Tq, d_k) and K (B_k, G, Tk, d_k).
Shape q_shape(const AttentionProblem& p) { return Shape({p.B, p.q.H, p.Tq, p.dk}); }
Shape k_shape(const AttentionProblem& p) { return Shape({p.k.B, p.k.H, p.Tk, p.dk}); }

// A dense view of rows ld apart (ld ≥ the last dimension).
TensorView view_of_rows(const float* data, const Shape& shape, std::size_t ld) {
    TensorView v;
    v.data = data, v.shape = shape;
    v.strides = {shape[1] * shape[2] * ld, shape[2] * ld, ld, 1};
    return v;
}

// The problem p reading the rotated q and k; its rope is none.
AttentionProblem rotated_problem(const AttentionProblem& p, const TensorView& q, const TensorView& k) {
    AttentionProblem r = p;
    r.q = operand_of(q, Role::queries);
    r.k = operand_of(k, Role::keys);
    r.q.shape = p.q.shape, r.k.shape = p.k.shape;  // messages name the inputs as given
    r.rope = Rope{};
    return r;
}

// The floats of rotated storage per thread that outlive a call (below), at most this many.
constexpr std::size_t kept_floats = std::size_t(16) << 20;  // 64 MiB

// The calling thread's kept storage: taken by a RopeStore for its life, then given back.
struct Kept {
    AlignedBuffer data;
    std::size_t capacity = 0;
};
thread_local Kept kept;

}  // namespace

AttentionProblem with_rope(const AttentionProblem& p, Tensor& q, Tensor& k) {
    q = Tensor(q_shape(p), Tensor::Uninitialized{});
    k = Tensor(k_shape(p), Tensor::Uninitialized{});
    rotate_into(p, {q.data(), p.Tq, q.row_stride()}, {k.data(), p.Tk, k.row_stride()});
    return rotated_problem(p, q.view(), k.view());
}

RopeStore::RopeStore() : data_(std::move(kept.data)), capacity_(std::exchange(kept.capacity, 0)) {}

RopeStore::~RopeStore() {
    if (capacity_ > kept.capacity && capacity_ <= kept_floats) kept.data = std::move(data_), kept.capacity = capacity_;
}

float* RopeStore::get(std::size_t floats) {
    floats = std::max<std::size_t>(floats, 1);
    if (floats > capacity_) {
        data_.reset();  // the old storage freed before the new one is asked for
        capacity_ = 0;
        data_.reset(aligned_alloc_floats(floats));
        capacity_ = floats;
    }
    return data_.get();
}

AttentionProblem with_rope(const AttentionProblem& p, RopeStore& store) {
    const std::size_t ld = Matrix::padded_stride(p.dk);
    const std::size_t q_floats = p.B * p.q.H * p.Tq * ld;  // a multiple of 16: K stays aligned
    float* q = store.get(q_floats + p.k.B * p.k.H * p.Tk * ld);
    float* k = q + q_floats;
    rotate_into(p, {q, p.Tq, ld}, {k, p.Tk, ld});
    return rotated_problem(p, view_of_rows(q, q_shape(p), ld), view_of_rows(k, k_shape(p), ld));
}

}  // namespace attn::engine

namespace attn {

void rotated_queries_keys(const AttentionProblem& p, Tensor& q, Tensor& k) { engine::with_rope(p, q, k); }

}  // namespace attn
