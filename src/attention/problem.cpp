// Resolving a batched_attention call (attention/problem.hpp): shapes, broadcasting and
// ranges checked once, into (batch, head) pointer arithmetic.
#include "attention/problem.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attn/error.hpp"

namespace attn::engine {

namespace {

View4 as4(const KVView& v, const char* what) {
    const std::size_t r = v.rank();
    if (r < 2 || r > 4)
        throw InputError(std::string(what) + " " + v.shape.text() + " has " + std::to_string(r) +
                         " dimensions: expected 2 to 4, read as (batch, heads, rows, columns)");
    View4 o;
    o.data = static_cast<const float*>(v.data);  // float16 data is only read via element_at
    o.type = v.type;
    o.shape = v.shape;
    o.T = v.shape[r - 2];
    o.d = v.shape[r - 1];
    o.sT = o.T == 1 ? 0 : v.strides[r - 2];
    if (r >= 3) o.H = v.shape[r - 3], o.sH = o.H == 1 ? 0 : v.strides[r - 3];
    if (r == 4) o.B = v.shape[0], o.sB = o.B == 1 ? 0 : v.strides[0];
    return o;
}

// torch.matmul's rule for one leading dimension: equal, or 1.
std::size_t broadcast(std::size_t a, std::size_t b, const char* dim, const View4& x, const char* xn, const View4& y,
                      const char* yn) {
    if (a == b || b == 1) return a;
    if (a == 1) return b;
    throw InputError(std::string(xn) + " " + x.shape.text() + " and " + yn + " " + y.shape.text() + " differ in the " +
                     dim + " dimension (" + std::to_string(a) + " and " + std::to_string(b) +
                     "): it must be equal, or 1 in one of them");
}

std::size_t resolve_end(std::size_t end, std::size_t size) { return end == IndexRange::npos ? size : end; }

void check_mask_like(const View4& m, const char* what, const Problem& p) {
    if (m.d != p.Tk || (m.T != p.Tq && m.T != 1) || (m.B != p.B && m.B != 1) || (m.H != p.H && m.H != 1))
        throw InputError(std::string(what) + " " + m.shape.text() + " does not broadcast to the scores (" +
                         std::to_string(p.B) + ", " + std::to_string(p.H) + ", " + std::to_string(p.Tq) + ", " +
                         std::to_string(p.Tk) + "): each dimension must be equal or 1, and the last must be Tk");
}

}  // namespace

Problem resolve(const TensorView& Q, const KVView& K, const KVView& V, const AttentionSpec& spec) {
    Problem p;
    p.q = as4(Q, "queries");
    p.k = as4(K, "keys");
    p.v = as4(V, "values");
    if (p.k.d != p.q.d)
        throw InputError("queries " + p.q.shape.text() + " and keys " + p.k.shape.text() +
                         " differ in d_k (the last dimension)");
    if (p.v.T != p.k.T)
        throw InputError("keys " + p.k.shape.text() + " and values " + p.v.shape.text() +
                         " differ in length: every key needs a value");
    p.Tq = p.q.T, p.Tk = p.k.T, p.dk = p.q.d, p.dv = p.v.d;
    p.B = broadcast(p.q.B, p.k.B, "batch", p.q, "queries", p.k, "keys");
    p.B = broadcast(p.B, p.v.B, "batch", p.q, "queries", p.v, "values");
    p.G = broadcast(p.k.H, p.v.H, "heads", p.k, "keys", p.v, "values");
    if (p.q.H == p.G || p.G == 1) {
        p.H = p.q.H;
    } else if (p.q.H == 1) {
        p.H = p.G;  // one query head broadcast to every K/V head
    } else if (p.q.H % p.G == 0) {
        p.H = p.q.H;  // grouped-query
    } else {
        throw InputError("queries " + p.q.shape.text() + " have " + std::to_string(p.q.H) + " heads and keys " +
                         p.k.shape.text() + " have " + std::to_string(p.G) +
                         ": the query heads must be a multiple of the key/value heads");
    }
    p.has_mask = spec.mask_bits || spec.mask;
    p.has_bias = spec.bias != nullptr;
    if (p.has_mask) {
        const MaskBits* bits = spec.mask_bits;
        if (!bits) {
            as4(*spec.mask, "mask");  // the rank checked before the floats are read
            bits = (p.packed_mask = std::make_shared<const MaskBits>(*spec.mask)).get();
        }
        TensorView shape;  // the mask's shape, for the checks
        shape.shape = bits->shape();
        p.mask = as4(shape, "mask");
        p.mask_rank = bits->rank();
        const std::size_t words = bits->row_words();
        p.mask_words.data = bits->data();
        p.mask_words.sT = p.mask.T == 1 ? 0 : words;
        p.mask_words.sH = p.mask.H == 1 ? 0 : p.mask.T * words;
        p.mask_words.sB = p.mask.B == 1 ? 0 : p.mask.H * p.mask.T * words;
    }
    if (p.has_bias) p.bias = as4(*spec.bias, "bias");
    // The mask and bias may carry the batch dimension alone (e.g. (B, 1, 1, Tk) padding).
    for (const View4* m : {p.has_mask ? &p.mask : nullptr, p.has_bias ? &p.bias : nullptr})
        if (m && m->B != 1 && p.B == 1) p.B = m->B;
    if (p.has_mask) check_mask_like(p.mask, "mask", p);
    if (p.has_bias) check_mask_like(p.bias, "bias", p);

    if (!spec.lengths.empty()) {
        if (spec.lengths.size() != p.B)
            throw InputError(std::to_string(spec.lengths.size()) + " lengths for " + std::to_string(p.B) +
                             " batch items: give one length per batch item");
        for (std::size_t b = 0; b < p.B; ++b)
            if (spec.lengths[b] > p.Tk)
                throw InputError("length " + std::to_string(spec.lengths[b]) + " of batch item " + std::to_string(b) +
                                 " exceeds the " + std::to_string(p.Tk) + " keys");
    }
    p.b0 = spec.batch_items.begin;
    p.b1 = resolve_end(spec.batch_items.end, p.B);
    if (p.b0 > p.b1 || p.b1 > p.B)
        throw InputError("batch items " + std::to_string(p.b0) + ":" + std::to_string(p.b1) +
                         " are out of range for " + std::to_string(p.B) + " batch items");
    p.r0 = spec.query_rows.begin;
    p.r1 = resolve_end(spec.query_rows.end, p.Tq);
    if (p.r0 > p.r1 || p.r1 > p.Tq)
        throw InputError("query rows " + std::to_string(p.r0) + ":" + std::to_string(p.r1) + " are out of range for " +
                         std::to_string(p.Tq) + " query rows");
    p.scale = spec.scale ? *spec.scale : (p.dk ? 1.0f / std::sqrt(float(p.dk)) : 1.0f);
    p.batch_dim = Q.rank() == 4 || K.rank() == 4 || V.rank() == 4 || p.mask_rank == 4 ||
                  (p.has_bias && spec.bias->rank() == 4);
    p.head_dim = spec.head_dim || Q.rank() >= 3 || K.rank() >= 3 || V.rank() >= 3 ||
                 p.mask_rank >= 3 || (p.has_bias && spec.bias->rank() >= 3);
    return p;
}

// Output slice of (batch item b, head h) in a ([B',] [H,] rows, cols) result.
float* slice_of(Tensor& t, const Problem& p, std::size_t b, std::size_t h) {
    return t.slice_data((b - p.b0) * (p.head_dim ? p.H : 1) + (p.head_dim ? h : 0));
}

// Query rows per fused work unit: enough units to keep every thread busy; a multiple of
}  // namespace attn::engine
