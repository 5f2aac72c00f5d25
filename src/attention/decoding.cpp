// The split-K decoding schedule (flash-decoding): (batch item, K/V head, key chunk) units,
// merged in key order.
#include "attention/schedules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "attn/ops.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/masked_rows.hpp"
#include "arch/kernel_table.hpp"
#include "runtime/cpu_features.hpp"
#include "runtime/parallel.hpp"

namespace attn::engine {

namespace {

struct FreeFloats {
    void operator()(float* p) const noexcept { aligned_free_floats(p); }
};
using Floats = std::unique_ptr<float[], FreeFloats>;

// The rows of the (batch item b, K/V head g) decode unit: every query head of the group,
// every requested query row; row hh·nq + i is head g·group + hh, query row r0 + i.
std::vector<kernels::DecodeRow> decode_rows(const AttentionProblem& p, std::size_t b, std::size_t g) {
    const std::size_t group = p.group(), nq = p.r1 - p.r0;
    std::vector<kernels::DecodeRow> rows(group * nq);
    for (std::size_t hh = 0; hh < group; ++hh)
        for (std::size_t i = 0; i < nq; ++i) {
            const std::size_t h = g * group + hh, gi = p.r0 + i;
            kernels::DecodeRow& r = rows[hh * nq + i];
            r.q = p.q.at(b, h) + gi * p.q.sT;
            r.mask = p.has_mask ? p.mask_words.at(b, h) + gi * p.mask_words.sT : nullptr;
            r.bias = p.has_bias ? p.bias.at(b, h) + gi * p.bias.sT : nullptr;
            const KeyRange keys = p.keys(b, gi);
            r.first = keys.begin, r.visible = keys.end;
            r.alibi_slope = p.alibi_slopes.empty() ? 0.0f : p.alibi_slopes[h];
            r.position = p.position(b, gi);
        }
    return rows;
}

// Units (batch item, K/V head, key chunk) compute unnormalised partial results; then, per
// (batch item, K/V head), the chunks are merged in key order: with M = max_c m_c,
// out = Σ_c e^(m_c − M)·acc_c / Σ_c e^(m_c − M)·l_c, chunks with nothing allowed

}  // namespace

std::size_t run_split_keys(const AttentionProblem& p, Tensor& context, Tensor* lse) {
    const std::size_t group = p.group(), nq = p.r1 - p.r0, rows = group * nq;
    const std::size_t pairs = (p.b1 - p.b0) * p.G;
    if (rows == 0 || pairs == 0) return 0;
    const std::size_t chunk = split_key_chunk(p.Tk, p.dk, p.dv, element_size(p.k.type));
    // The chunks on the key rows computed (all Tk but for a key shard), on the whole run's grid.
    const std::size_t c0 = p.k0 / chunk, c1 = (std::min(p.k1, p.Tk) + chunk - 1) / chunk;
    const std::size_t chunks = std::max<std::size_t>(1, c1 - std::min(c0, c1));
    const std::size_t ldacc = (p.dv + 15) / 16 * 16;
    // (batch item, K/V head) pairs per pass, so that the partial results stay near 64 MiB.
    const std::size_t per_pair = chunks * rows * ldacc;
    const std::size_t pass = std::clamp<std::size_t>((std::size_t(16) << 20) / per_pair, 1, pairs);
    Floats acc(aligned_alloc_floats(pass * per_pair));
    std::vector<float> m(pass * chunks * rows), l(pass * chunks * rows);
    const auto decode = kernels::table_of(current_arch()).decode_chunk;
    // A lone row's software prefetch (kernels/decode.hpp), off on AMD's family 1Ah (Zen 5) beyond
    // 8 MiB of K and V (q8_0 counted at a byte a value): there the hardware prefetchers stream
    // them better alone. Measured (avx512, 2 threads, d=128, f32/f16/q8_0 K/V): 0.75-0.93x the time
    // without from 8 MiB to 1.3 GiB, while up to 8 MiB 16-bit and q8_0 K/V took 1.1-1.2x as
    // long without (data/bench/2026-12-06T2300-epyc-zen5-decode-prefetch-ab.csv).
    const std::size_t k_end = std::min(p.k1, p.Tk), keys = k_end - std::min(p.k0, k_end);
    const std::size_t kv_bytes = pairs * keys * (p.dk + p.dv) * element_size(p.k.type);
    const bool stream_prefetch = !(cpu_features().amd_family_1ah && kv_bytes > (std::size_t(8) << 20));
    const std::size_t ldo = context.row_stride();
    std::vector<std::size_t> masked(pairs, 0);
    for (std::size_t first = 0; first < pairs; first += pass) {
        const std::size_t np = std::min(pass, pairs - first);
        parallel_for(np * chunks, [&](std::size_t u) {
            const std::size_t pair = first + u / chunks, c = u % chunks;
            const std::size_t b = p.b0 + pair / p.G, g = pair % p.G;
            const std::vector<kernels::DecodeRow> rws = decode_rows(p, b, g);
            kernels::DecodeArgs a{};
            a.rows = rws.data(), a.nrows = rows;
            a.K = p.k.element_at(b, g), a.ldk = p.k.sT;
            a.V = p.v.element_at(b, g), a.ldv = p.v.sT;
            a.kv_type = to_kernel(p.k.type);
            a.dk = p.dk, a.dv = p.dv, a.scale = p.scale, a.softcap = p.softcap;
            a.long_tiles = group * p.Tq == 1;  // the whole run's rows per unit, not this range's
            a.stream_prefetch = stream_prefetch;
            a.k_begin = (c0 + c) * chunk, a.k_end = std::min(p.Tk, (c0 + c + 1) * chunk);
            a.acc = acc.get() + u * rows * ldacc, a.ldacc = ldacc;
            a.m = m.data() + u * rows, a.l = l.data() + u * rows;
            decode(a);
        });
        parallel_for(np, [&](std::size_t k) {
            const std::size_t pair = first + k, b = p.b0 + pair / p.G, g = pair % p.G;
            std::vector<double> o(p.dv);
            std::vector<float> mean;
            for (std::size_t row = 0; row < rows; ++row) {
                const std::size_t h = g * group + row / nq, i = row % nq;
                float* out = slice_of(context, p, b, h) + i * ldo;
                float* row_lse = lse ? lse_of(lse, p, b, h) + i : nullptr;
                const auto at = [&](std::size_t c) { return (k * chunks + c) * rows + row; };
                // A sink (gpt-oss) is counted here, once: one more term of the merge, with no value.
                const float sink = p.sink(h);
                float M = sink;
                bool nan = false;  // a chunk's NaN score makes the row NaN (kernels/masked_rows.hpp)
                for (std::size_t c = 0; c < chunks; ++c) {
                    M = std::max(M, m[at(c)]);
                    nan = nan || m[at(c)] != m[at(c)] || l[at(c)] != l[at(c)];
                }
                if (nan) {
                    std::fill(out, out + p.dv, std::numeric_limits<float>::quiet_NaN());
                    if (row_lse) *row_lse = std::numeric_limits<float>::quiet_NaN();
                    continue;
                }
                if (M == -std::numeric_limits<float>::infinity()) {
                    ++masked[pair];
                    if (row_lse) *row_lse = M;
                    kernels::write_masked_context(to_kernel(p.masked_rows), p.Tk, p.dv, out, [&] {
                        if (mean.empty()) {
                            mean.resize(p.dv);
                            kernels::mean_of_v(p.v.element_at(b, g), to_kernel(p.v.type), p.Tk, p.dv, p.v.sT, mean.data());
                        }
                        return mean.data();
                    });
                    continue;
                }
                std::fill(o.begin(), o.end(), 0.0);
                double L = sink == -std::numeric_limits<float>::infinity() ? 0.0 : std::exp(double(sink) - double(M));
                for (std::size_t c = 0; c < chunks; ++c) {
                    const float mc = m[at(c)];
                    if (mc == -std::numeric_limits<float>::infinity()) continue;
                    const double w = std::exp(double(mc) - double(M));
                    L += w * double(l[at(c)]);
                    const float* a = acc.get() + at(c) * ldacc;
                    for (std::size_t col = 0; col < p.dv; ++col) o[col] += w * double(a[col]);
                }
                for (std::size_t col = 0; col < p.dv; ++col) out[col] = float(o[col] / L);
                if (row_lse) *row_lse = kernels::log_sum_exp(M, L);
            }
        });
    }
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

}  // namespace attn::engine
