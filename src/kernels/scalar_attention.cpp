// The scalar arch: the same algorithms as the kernels of kernels/attention_impl.hpp without SIMD —
// the Cephes-style exp and tanh, the additive scores, the stable row softmax and the online-softmax streaming attention (one
// query row at a time over tiles of keys; causal rows stop at their last visible key).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/kv_elements.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/kernel_types.hpp"
#include "kernels/masked_rows.hpp"

namespace attn::kernels::scalar {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

float pow2(std::int32_t n) {  // 2^n for n in [−126, 127]
    const std::uint32_t bits = std::uint32_t(n + 127) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// The vector kernels' exp (see kernels/exp.hpp), without fused multiply-adds: the Cody–Waite split
// of ln 2 keeps n·0.693359375 exact. Measured maximum error against std::exp in double: 0.990 ULP
// over every float in [−87, 88.72] (exhaustive run on x86-64; tests/unit/kernels/test_exp.cpp
// samples the whole range and asserts ≤ 2 ULP), 0.75 ULP on the subnormal results of (−88, −87); x
// ≤ −88 gives exactly 0.
float exp1(float x) {
    if (x != x) return x;
    if (x <= -88.0f) return 0.0f;
    const float xc = std::min(x, 88.8f);
    const float magic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
    const float t = xc * 1.44269504088896341f + magic;
    const float n = t - magic;
    float r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = (p * (r * r) + r) + 1.0f;
    const std::int32_t ni = std::int32_t(n);
    const std::int32_t n1 = ni >> 1, n2 = ni - n1;
    return (p * pow2(n1)) * pow2(n2);
}

// The vector kernels' tanh (see kernels/tanh.hpp, whose coefficients these are), without fused
// multiply-adds and with a divide: z·P(z²)/Q(z²) on z = x clamped to ±7.905.
float tanh1(float x) {
    if (x != x) return x;
    const float z = std::max(std::min(x, 7.90531110763549805f), -7.90531110763549805f), z2 = z * z;
    float p = -2.76076847742355e-16f;
    for (float c : {2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f, 1.48572235717979e-05f,
                    6.37261928875436e-04f, 4.89352455891786e-03f})
        p = p * z2 + c;
    float q = 1.19825839466702e-06f;
    for (float c : {1.18534705686654e-04f, 2.26843463243900e-03f, 4.89352518554385e-03f}) q = q * z2 + c;
    return (p / q) * z;
}

// The softcap c·tanh(x/c) as the vector kernels compute it (inv_c = 1/c; ±inf, an overflowed
// product, becomes NaN: kernels/tanh.hpp's softcap); c = 0: none.
inline float cap(float x, float c, float inv_c) {
    if (c == 0.0f) return x;
    return std::isinf(x) ? std::numeric_limits<float>::quiet_NaN() : c * tanh1(x * inv_c);
}
// The same of z = x/c (the fused kernels' scores for c ≥ 1: kernel_types.hpp's softcap_folded).
inline float cap_of_quotient(float z, float c) {
    if (c == 0.0f) return z;
    return std::isinf(z) ? std::numeric_limits<float>::quiet_NaN() : c * tanh1(z);
}

constexpr std::size_t key_tile = 128;

// Bit j of a packed mask row (attn/mask_bits.hpp): key j allowed.
inline bool mask_bit(const std::uint64_t* row, std::size_t j) { return (row[j / 64] >> (j % 64)) & 1u; }

// The online softmax of one query row over keys [begin, end), key_tile keys at a time:
// updates the running max m, the running sum l and the unnormalised accumulator acc (dv
// floats). mask_row (bits) / bias_row are indexed by key (nullable); s holds key_tile floats.
// Each tile's weighted values are summed from 0 (into tile, dv floats), then acc = alpha·acc +
// tile, as its weights' sum joins l: numerator and denominator round alike (a row of 100,000
// keys, one far above the rest, lost 4e-3 of its context when each product went into acc).
// Shared by the streaming kernel and the split-K decoding chunks (any Args with K, V, their
// strides, dk, dv and scale); E is the element type of K and V (kernels/kv_elements.hpp).
// ALiBi's term for key j of the query at position pos (kernels/alibi.hpp): slope·(j − pos).
inline float alibi(float slope, std::size_t j, long long pos) { return slope * float((long long)j - pos); }

template <class E, class Args>
void online_softmax_row(const float* q, const std::uint64_t* mask_row, const float* bias_row, float slope,
                        long long pos, const Args& a, std::size_t begin, std::size_t end, float& m, float& l,
                        float* acc, float* s, float* qs, float* tile) {
    // The query times query_scale, rounded per element, as the vector kernels pack it (into qs,
    // dk floats of the caller's scratch).
    const float qscale = query_scale(a.scale, a.softcap), inv_c = a.softcap == 0.0f ? 0.0f : 1.0f / a.softcap;
    for (std::size_t p = 0; p < a.dk; ++p) qs[p] = qscale * q[p];
    for (std::size_t t0 = begin; t0 < end; t0 += key_tile) {
        const std::size_t nk = std::min(key_tile, end - t0);
        float tile_max = neg_inf;
        for (std::size_t jj = 0; jj < nk; ++jj) {
            const std::size_t j = t0 + jj;
            const kv_ptr<E> k = kv_begin<E>(a.K) + j * a.ldk;
            float dot = 0.0f;
            for (std::size_t p = 0; p < a.dk; ++p) dot += qs[p] * widen(k[p]);
            float v = softcap_folded(a.softcap) ? cap_of_quotient(dot, a.softcap) : cap(dot, a.softcap, inv_c);
            if (slope != 0.0f) v += alibi(slope, j, pos);
            if (bias_row) v += bias_row[j];
            if (mask_row && !mask_bit(mask_row, j)) v = neg_inf;
            s[jj] = v;
            tile_max = std::max(tile_max, v);
        }
        // std::max drops a NaN; one in the tile makes the row NaN (masked_rows.hpp): m = NaN
        // carries it through alpha, l and acc.
        if (tile_max == neg_inf && holds_nan(s, nk)) tile_max = std::numeric_limits<float>::quiet_NaN();
        const float m_new = m != m || tile_max != tile_max ? std::numeric_limits<float>::quiet_NaN() : std::max(m, tile_max);
        if (m_new == neg_inf) continue;  // nothing allowed yet
        const float alpha = m == neg_inf ? 0.0f : exp1(m - m_new);
        float tile_sum = 0.0f;
        for (std::size_t jj = 0; jj < nk; ++jj) tile_sum += (s[jj] = exp1(s[jj] - m_new));
        l = alpha * l + tile_sum;
        m = m_new;
        std::fill(tile, tile + a.dv, 0.0f);
        for (std::size_t jj = 0; jj < nk; ++jj) {
            const kv_ptr<E> v = kv_begin<E>(a.V) + (t0 + jj) * a.ldv;
            for (std::size_t c = 0; c < a.dv; ++c) tile[c] += s[jj] * widen(v[c]);
        }
        for (std::size_t c = 0; c < a.dv; ++c) acc[c] = alpha * acc[c] + tile[c];
    }
}

}  // namespace

void exp(const float* x, float* y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) y[i] = exp1(x[i]);
}

void tanh(const float* x, float* y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) y[i] = tanh1(x[i]);
}

// kernels/additive.hpp's sum, one cell at a time (the product rounded, then the add).
void additive_scores(const AdditiveArgs& a) {
    for (std::size_t i = 0; i < a.m; ++i)
        for (std::size_t j = 0; j < a.n; ++j) {
            float acc = 0.0f;
            for (std::size_t c = 0; c < a.h; ++c)
                acc += a.va[c * a.va_stride] * tanh1(a.Qp[i * a.ldq + c] + a.KpT[c * a.ldkt + j]);
            a.S[i * a.lds + j] = acc;
        }
}

namespace {

// softmax_rows, and with lse each row's log_sum_exp at lse[i] (kernel_types.hpp). A sink (not
// -inf) joins every row's max and sum, never its entries (FlashArgs::sink).
std::size_t softmax_rows_lse(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy,
                             float* lse, float sink = neg_inf) {
    std::size_t masked = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        float* r = S + i * lds;
        float mx = sink;
        for (std::size_t j = 0; j < cols; ++j) mx = std::max(mx, r[j]);
        if (mx == neg_inf) {  // fully masked: x − max would be NaN; a NaN makes the row NaN (masked_rows.hpp)
            const bool nan = holds_nan(r, cols);
            masked += !nan;
            const float fill = nan ? std::numeric_limits<float>::quiet_NaN() : masked_row_weight(policy, cols);
            std::fill(r, r + cols, fill);
            if (lse) lse[i] = nan ? fill : neg_inf;
            continue;
        }
        // In double: one chain of float adds lost each term below half a unit of the sum (a row of
        // 100,000 entries, one e^0 and the rest e^−17: all of them, 4e−3 of the sum)
        double sum = 0.0;
        for (std::size_t j = 0; j < cols; ++j) sum += (r[j] = exp1(r[j] - mx));
        if (sink != neg_inf) sum += exp1(sink - mx);
        if (lse) lse[i] = log_sum_exp(mx, sum);
        const float inv = 1.0f / float(sum);
        for (std::size_t j = 0; j < cols; ++j) r[j] *= inv;
    }
    return masked;
}

}  // namespace

std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy) {
    return softmax_rows_lse(S, lds, rows, cols, policy, nullptr);
}

std::size_t score_epilogue(const ScoreEpilogueArgs& a) {
    const float inv_c = a.softcap == 0.0f ? 0.0f : 1.0f / a.softcap;
    std::size_t masked = 0;
    for (std::size_t i = a.row_begin; i < a.row_end; ++i) {
        const std::size_t r = i - a.row_begin;
        const float* s = a.S + r * a.lds;
        float* p = a.P + r * a.ldp;
        const std::uint64_t* mask = a.mask ? a.mask + i * a.ldm : nullptr;
        const float* bias = a.bias ? a.bias + i * a.ldb : nullptr;
        const KeyRange keys = in_document(keys_at(a.causal, a.window, (long long)i + a.offset, a.Tk, a.key_limit, a.key_first),
                                          a.doc_begin, a.doc_end, i);
        float* capped = a.capped ? a.capped + r * a.ld_capped : nullptr;
        const long long pos = (long long)i + a.offset;
        for (std::size_t j = 0; j < a.Tk; ++j) {
            const bool overflowed = std::isinf(s[j]) && overflowed_product_is_nan(a.scale);  // kernel_types.hpp
            float v = cap(overflowed ? std::numeric_limits<float>::quiet_NaN() : a.scale * s[j], a.softcap, inv_c);
            if (capped) capped[j] = v;
            if (a.alibi_slope != 0.0f) v += alibi(a.alibi_slope, j, pos);
            if (bias) v += bias[j];
            const bool allowed = j >= keys.begin && j < keys.end && (!mask || mask_bit(mask, j));
            p[j] = allowed ? v : neg_inf;  // a -inf bias is -inf already
        }
        if (a.scaled) std::copy(p, p + a.Tk, a.scaled + r * a.ld_scaled);
        if (a.softmax) masked += softmax_rows_lse(p, a.ldp, 1, a.Tk, a.policy, a.lse ? a.lse + r : nullptr, a.sink);
    }
    return masked;
}

std::size_t flash(const FlashArgs& a) {
    std::vector<float> s(key_tile), acc(a.dv), qs(a.dk), tile(a.dv);
    std::size_t masked = 0;
    std::vector<float> mean;  // column means of V for the uniform policy, on first use
    for (std::size_t i = a.row_begin; i < a.row_end; ++i) {
        const KeyRange keys = in_document(keys_at(a.causal, a.window, (long long)i + a.offset, a.Tk, a.key_limit, a.key_first),
                                          a.doc_begin, a.doc_end, i);
        const float* q = a.Q + i * a.ldq;
        float m = a.sink, l = a.sink == neg_inf ? 0.0f : 1.0f;  // a sink: m = sink, l = 1 (FlashArgs::sink)
        std::fill(acc.begin(), acc.end(), 0.0f);
        const std::uint64_t* mask_row = a.mask ? a.mask + i * a.ldm : nullptr;
        const float* bias_row = a.bias ? a.bias + i * a.ldb : nullptr;
        const long long pos = (long long)i + a.offset;
        with_element_type(a.kv_type, [&](auto e) {
            online_softmax_row<decltype(e)>(q, mask_row, bias_row, a.alibi_slope, pos, a, keys.begin, keys.end, m, l,
                                            acc.data(), s.data(), qs.data(), tile.data());
        });
        float* out = a.O + (i - a.row_begin) * a.ldo;
        if (a.lse) a.lse[i - a.row_begin] = log_sum_exp(m, l);
        if (l != 0.0f) {  // l = 0: nothing visible; NaN (a NaN score) gives a NaN row
            const float inv = 1.0f / l;
            for (std::size_t c = 0; c < a.dv; ++c) out[c] = acc[c] * inv;
            continue;
        }
        ++masked;
        write_masked_context(a.policy, a.Tk, a.dv, out, [&] {
            if (mean.empty()) {
                mean.resize(a.dv);
                mean_of_v(a.V, a.kv_type, a.Tk, a.dv, a.ldv, mean.data());
            }
            return mean.data();
        });
    }
    return masked;
}

void decode_chunk(const DecodeArgs& a) {
    std::vector<float> s(key_tile), qs(a.dk), tile(a.dv);
    for (std::size_t r = 0; r < a.nrows; ++r) {
        const DecodeRow& row = a.rows[r];
        const std::size_t begin = std::max(a.k_begin, row.first), end = std::min(a.k_end, row.visible);
        float m = neg_inf, l = 0.0f;
        float* acc = a.acc + r * a.ldacc;
        std::fill(acc, acc + a.dv, 0.0f);
        with_element_type(a.kv_type, [&](auto e) {
            online_softmax_row<decltype(e)>(row.q, row.mask, row.bias, row.alibi_slope, row.position, a, begin, end, m,
                                            l, acc, s.data(), qs.data(), tile.data());
        });
        a.m[r] = m;
        a.l[r] = l;
    }
}

}  // namespace attn::kernels::scalar
