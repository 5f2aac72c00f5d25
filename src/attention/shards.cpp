// merge_key_shards (attn/shards.hpp): key shards' contexts and log-sum-exps combined.
#include "attn/shards.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace attn {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// A view's elements in C order (any strides), as float32.
std::vector<float> dense(const TensorView& v) {
    std::vector<float> out;
    out.reserve(v.shape.numel());
    const std::size_t r = v.rank();
    std::vector<std::size_t> idx(r, 0);
    for (std::size_t n = 0; n < v.shape.numel(); ++n) {
        std::size_t off = 0;
        for (std::size_t a = 0; a < r; ++a) off += idx[a] * v.strides[a];
        out.push_back(v.data[off]);
        for (std::size_t a = r; a-- > 0;) {
            if (++idx[a] < v.shape[a]) break;
            idx[a] = 0;
        }
    }
    return out;
}

struct Dense {
    std::vector<float> context, lse;
};

// Bit-pattern order of two float arrays of equal length (a total order: NaN and -0 included).
int compare_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.empty() ? 0 : std::memcmp(a.data(), b.data(), a.size() * sizeof(float));
}

}  // namespace

MergedShards merge_key_shards(const std::vector<KeyShard>& shards) {
    if (shards.empty()) throw InputError("no key shards to merge");
    const Shape shape = shards[0].context.shape;
    if (shape.rank() < 2)
        throw ShardError(0, "its context has shape " + shape.text() + ": a context has rows and columns (…, Tq, dv)");
    const std::vector<std::size_t> cdims = shape.to_vector();
    const std::vector<std::size_t> ldims(cdims.begin(), cdims.end() - 1);
    const std::size_t dv = cdims.back(), rows = shape.numel() / std::max<std::size_t>(dv, 1);
    std::vector<Dense> d(shards.size());
    for (std::size_t s = 0; s < shards.size(); ++s) {
        const KeyShard& k = shards[s];
        if (k.context.shape != shape)
            throw ShardError(s, "its context has shape " + k.context.shape.text() + ", the first shard's " +
                                    shape.text() + ": shards of one run have the same shape");
        if (k.lse.shape.to_vector() != ldims)
            throw ShardError(s, "its lse has shape " + k.lse.shape.text() + " for a context of shape " + shape.text() +
                                    ": the lse has the context's shape without its last dimension");
        d[s].context = dense(k.context);
        d[s].lse = dense(k.lse);
        const std::size_t n_lse = d[s].lse.size();
        for (std::size_t r = 0; r < n_lse; ++r) {
            const float l = d[s].lse[r];
            if (std::isnan(l) || l == std::numeric_limits<float>::infinity())
                throw ShardError(s, "its lse holds " + std::string(std::isnan(l) ? "NaN" : "+inf") + " at row " +
                                        std::to_string(r) + ": a log-sum-exp is finite, or -inf for a masked row");
            if (l == neg_inf) continue;
            for (std::size_t c = 0; c < dv; ++c)
                if (!std::isfinite(d[s].context[r * dv + c]))
                    throw ShardError(s, "its context is not finite at row " + std::to_string(r) +
                                            ", whose lse is finite (not a masked row)");
        }
    }
    // One order from the contents alone: the same shards in any order reduce alike.
    std::vector<std::size_t> order(shards.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&d](std::size_t a, std::size_t b) {
        const int c = compare_bits(d[a].lse, d[b].lse);
        return c != 0 ? c < 0 : compare_bits(d[a].context, d[b].context) < 0;
    });

    MergedShards m;
    m.context = Tensor(shape, Tensor::Uninitialized{});
    m.lse = Tensor(Shape(ldims), Tensor::Uninitialized{});
    float* lse_out = m.lse.data();
    const std::size_t lds = m.lse.row_stride(), lse_cols = ldims.back();
    const std::size_t ldc = m.context.row_stride();
    std::vector<double> acc(dv);
    for (std::size_t r = 0; r < rows; ++r) {
        float* out = m.context.data() + r * ldc;
        float& lse = lse_out[(r / lse_cols) * lds + r % lse_cols];
        float M = neg_inf;
        for (std::size_t s : order) M = std::max(M, d[s].lse[r]);
        if (M == neg_inf) {  // masked in every shard: the value each shard's policy gave
            const float* c = d[order[0]].context.data() + r * dv;
            std::copy(c, c + dv, out);
            lse = neg_inf;
            continue;
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        double L = 0.0;
        for (std::size_t s : order) {
            const float l = d[s].lse[r];
            if (l == neg_inf) continue;
            const double w = std::exp(double(l) - double(M));
            L += w;
            const float* c = d[s].context.data() + r * dv;
            for (std::size_t k = 0; k < dv; ++k) acc[k] += w * double(c[k]);
        }
        for (std::size_t k = 0; k < dv; ++k) out[k] = float(acc[k] / L);
        lse = float(double(M) + std::log(L));
    }
    return m;
}

}  // namespace attn
