// The batched multi-head engine (attn/multihead.hpp): shapes and broadcasting are resolved
// here into (batch, head) pointer arithmetic; the numbers go through attn/ops.hpp and the
// per-arch fused kernel (one call per (batch item, head, query block) work unit).
#include "attn/multihead.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/kernel_table.hpp"
#include "runtime/parallel.hpp"

namespace attn {

namespace {

// A view of rank 2..4 read as (B, H, T, d); a size-1 dimension gets stride 0 (broadcast).
// K and V may hold float16 elements (type); every other input is float32.
struct View4 {
    const float* data = nullptr;
    ElementType type = ElementType::f32;
    std::size_t B = 1, H = 1, T = 0, d = 0;
    std::size_t sB = 0, sH = 0, sT = 0;
    Shape shape;  // as given, for messages

    const float* at(std::size_t b, std::size_t h) const noexcept { return data + b * sB + h * sH; }
    // (b, h) of a view of any element type.
    const void* element_at(std::size_t b, std::size_t h) const noexcept {
        return reinterpret_cast<const char*>(data) + (b * sB + h * sH) * element_size(type);
    }
};

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

// The mask's bits as (B, H, T) rows of words, broadcast dimensions with stride 0.
struct MaskWords {
    const std::uint64_t* data = nullptr;
    std::size_t sB = 0, sH = 0, sT = 0;
    const std::uint64_t* at(std::size_t b, std::size_t h) const noexcept { return data + b * sB + h * sH; }
};

// The resolved problem: every input as (B, H, T, d) with broadcast strides, and the ranges.
struct Problem {
    View4 q, k, v, mask, bias;  // mask: its shape only (the kernels read mask_words)
    MaskWords mask_words;
    std::shared_ptr<const MaskBits> packed_mask;  // when the caller gave only the float mask
    std::size_t mask_rank = 0;
    bool has_mask = false, has_bias = false;
    std::size_t B = 1, H = 1, G = 1, Tq = 0, Tk = 0, dk = 0, dv = 0;
    std::size_t b0 = 0, b1 = 1, r0 = 0, r1 = 0;
    float scale = 1.0f;
    bool batch_dim = false, head_dim = false;

    std::size_t group() const noexcept { return H / G; }
    std::size_t kv_head(std::size_t h) const noexcept { return h / group(); }
    std::size_t key_limit(const AttentionSpec& s, std::size_t b) const noexcept {
        return s.lengths.empty() ? no_key_limit : s.lengths[b];
    }
    // Shape ([B',] [H,] rows, cols) of a result.
    Shape result_shape(bool with_heads, std::size_t rows, std::size_t cols) const {
        std::vector<std::size_t> dims;
        if (batch_dim) dims.push_back(b1 - b0);
        if (with_heads && head_dim) dims.push_back(H);
        dims.push_back(rows);
        dims.push_back(cols);
        return Shape(dims);
    }
};

void check_mask_like(const View4& m, const char* what, const Problem& p) {
    if (m.d != p.Tk || (m.T != p.Tq && m.T != 1) || (m.B != p.B && m.B != 1) || (m.H != p.H && m.H != 1))
        throw InputError(std::string(what) + " " + m.shape.text() + " does not broadcast to the scores (" +
                         std::to_string(p.B) + ", " + std::to_string(p.H) + ", " + std::to_string(p.Tq) + ", " +
                         std::to_string(p.Tk) + "): each dimension must be equal or 1, and the last must be Tk");
}

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
// every arch's query block. Each row is computed the same way in any unit (the kernel's
// lanes are independent), so the choice never changes the bits.
std::size_t fused_rows_per_unit(const Problem& p, std::size_t heads_per_unit) {
    const std::size_t rows = p.r1 - p.r0, per_item = (p.b1 - p.b0) * (p.H / heads_per_unit);
    const std::size_t threads = current_threads();
    return rows * per_item >= 1024 * threads ? 256 : 64;
}

// The query heads of a group can be stacked into one Q of group·Tq rows when every row of
// every head sees the same keys (no causal rule, no mask or bias: only the batch item's key
// limit) and the heads' rows and outputs are evenly spaced (Q heads not broadcast, all rows
// computed). Then each K/V tile is loaded once for all the heads that share it; the rows
// come out bit for bit as head by head (the kernel computes every row independently).
bool can_stack_heads(const Problem& p, const AttentionSpec& spec) {
    return p.group() > 1 && spec.causal == Causal::none && !p.has_mask && !p.has_bias && p.q.H == p.H &&
           p.q.sH == p.Tq * p.q.sT && p.r0 == 0 && p.r1 == p.Tq;
}

std::size_t run_fused(const Problem& p, const AttentionSpec& spec, Tensor& context) {
    const bool stacked = can_stack_heads(p, spec);
    // A unit computes `heads` query heads over query rows [r0, r1) of its (stacked) Q.
    const std::size_t group = p.group(), heads = stacked ? 1 : group, Tq = stacked ? group * p.Tq : p.Tq;
    const std::size_t r0 = stacked ? 0 : p.r0, r1 = stacked ? Tq : p.r1;
    const std::size_t rpu = fused_rows_per_unit(p, group);
    const std::size_t first = r0 / rpu, last = r1 == r0 ? first : (r1 - 1) / rpu + 1;
    const std::size_t blocks = last - first, items = p.b1 - p.b0;
    const std::size_t units = items * p.G * blocks;
    std::vector<std::size_t> masked(units, 0);
    const auto flash = kernels::table_of(current_arch()).flash;
    const std::size_t ldo = context.row_stride();
    // Unit u = ((b·G + g)·blocks + block); the costliest blocks (last, when causal) first.
    // Unstacked, one unit runs the query heads that share K/V head g back to back over the
    // same rows, so each K/V tile is fetched from memory once and reused from cache.
    parallel_for(units, [&](std::size_t u) {
        const std::size_t blk = blocks - 1 - u % blocks, g = (u / blocks) % p.G, b = p.b0 + u / blocks / p.G;
        const std::size_t rb = std::max(r0, (first + blk) * rpu), re = std::min(r1, (first + blk + 1) * rpu);
        for (std::size_t h = g * group; h < g * group + heads; ++h) {
            kernels::FlashArgs a{};
            a.Q = p.q.at(b, h), a.ldq = p.q.sT;
            a.K = p.k.element_at(b, g), a.ldk = p.k.sT;
            a.V = p.v.element_at(b, g), a.ldv = p.v.sT;
            a.kv_type = to_kernel(p.k.type);
            a.O = slice_of(context, p, b, h) + (rb - r0) * ldo, a.ldo = ldo;
            a.Tq = Tq, a.Tk = p.Tk, a.dk = p.dk, a.dv = p.dv;
            a.scale = p.scale;
            a.causal = to_kernel(spec.causal);
            a.mask = p.has_mask ? p.mask_words.at(b, h) : nullptr, a.ldm = p.mask_words.sT;
            a.bias = p.has_bias ? p.bias.at(b, h) : nullptr, a.ldb = p.bias.sT;
            a.policy = to_kernel(spec.masked_rows);
            a.row_begin = rb, a.row_end = re;
            a.key_limit = p.key_limit(spec, b);
            masked[u] += flash(a);
        }
    });
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

// One (b, h) of the materialised path: scores, scaled, normalised weights, context.
struct MaterialisedOut {
    Tensor *scores, *scaled, *weights, *context;
};

// Query rows of a materialised work unit: a block of scores (rows·Tk floats) of about
// 1 MiB, so that the scores a unit writes are still in L2 when its softmax and ·V read
// them. Each row is computed the same way in any block (the GEMM's edge tiles compute like
// full ones; the epilogue is row by row), so the choice never changes the bits.
std::size_t materialised_rows_per_unit(std::size_t Tk) {
    const std::size_t rows = (std::size_t(1) << 20) / std::max<std::size_t>(Tk, 1);
    return std::clamp<std::size_t>(rows / 16 * 16, 16, 256);
}

// Per-thread scratch for the weights of a unit when they are not kept: grown when needed,
// never zero-filled, reused by every later unit and call on this thread.
float* thread_scratch(std::size_t floats) {
    thread_local std::unique_ptr<float[]> buffer;
    thread_local std::size_t size = 0;
    if (floats > size) {
        buffer.reset(new float[floats]);
        size = floats;
    }
    return buffer.get();
}

// The scale/bias/mask epilogue (and the softmax when asked) over rows [i0, i1) (indices into
// the computed rows), split over threads in blocks of rows (serially inside a unit).
std::size_t score_epilogue(const Problem& p, const AttentionSpec& spec, std::size_t b, std::size_t h, std::size_t i0,
                           std::size_t i1, const float* s, std::size_t lds, float* scaled, std::size_t ld_scaled, float* w,
                           std::size_t ldw) {
    constexpr std::size_t rows_per_block = 32;
    const std::size_t blocks = (i1 - i0 + rows_per_block - 1) / rows_per_block;
    std::vector<std::size_t> masked(blocks, 0);
    const auto epilogue = kernels::table_of(current_arch()).score_epilogue;
    parallel_for(blocks, [&](std::size_t blk) {
        const std::size_t r0 = blk * rows_per_block, r1 = std::min(i1 - i0, r0 + rows_per_block);
        kernels::ScoreEpilogueArgs a{};
        a.S = s + r0 * lds, a.lds = lds;
        a.scaled = scaled ? scaled + r0 * ld_scaled : nullptr, a.ld_scaled = ld_scaled;
        a.P = w + r0 * ldw, a.ldp = ldw;
        a.Tq = p.Tq, a.Tk = p.Tk;
        a.row_begin = p.r0 + i0 + r0, a.row_end = p.r0 + i0 + r1;
        a.scale = p.scale;
        a.causal = to_kernel(spec.causal);
        a.key_limit = p.key_limit(spec, b);
        if (p.has_mask) a.mask = p.mask_words.at(b, h), a.ldm = p.mask_words.sT;
        if (p.has_bias) a.bias = p.bias.at(b, h), a.ldb = p.bias.sT;
        a.softmax = spec.normalize == Normalization::softmax;
        a.policy = to_kernel(spec.masked_rows);
        masked[blk] = epilogue(a);
    });
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

// Rows [i0, i1) (indices into the computed rows r0…r1) of one (b, h) of the materialised
// path: Q·Kᵀ into the scores (when kept) or straight into the weights, the vector epilogue
// (scale, bias, mask, softmax; the scaled scores copied out on the way), ·V. Every element
// of the kept results is written exactly once.
std::size_t run_materialised_rows(const Problem& p, const AttentionSpec& spec, std::size_t b, std::size_t h,
                                  std::size_t i0, std::size_t i1, const MatrixView& kt, const MaterialisedOut& out) {
    const std::size_t rows = i1 - i0, kv = p.kv_head(h);
    const MatrixView q{p.q.at(b, h) + (p.r0 + i0) * p.q.sT, rows, p.dk, p.q.sT};
    const MatrixView v{p.v.at(b, kv), p.Tk, p.dv, p.v.sT};
    // The working rows: the weights result when kept, else this thread's scratch.
    float* w;
    std::size_t ldw;
    if (out.weights) {
        ldw = out.weights->row_stride(), w = slice_of(*out.weights, p, b, h) + i0 * ldw;
    } else {
        ldw = Matrix::padded_stride(p.Tk), w = thread_scratch(rows * ldw);
    }
    const std::size_t lds = out.scores ? out.scores->row_stride() : ldw;
    float* s = out.scores ? slice_of(*out.scores, p, b, h) + i0 * lds : w;
    matmul_into(q, kt, /*transpose_b=*/false, s, lds);
    const std::size_t ld_scaled = out.scaled ? out.scaled->row_stride() : 0;
    float* scaled = out.scaled ? slice_of(*out.scaled, p, b, h) + i0 * ld_scaled : nullptr;
    std::size_t masked = score_epilogue(p, spec, b, h, i0, i1, s, lds, scaled, ld_scaled, w, ldw);
    if (spec.normalize != Normalization::softmax)
        masked = normalize_rows(w, ldw, rows, p.Tk, spec.normalize, spec.masked_rows);
    if (out.context) {
        const std::size_t ldc = out.context->row_stride();
        matmul_into({w, rows, p.Tk, ldw}, v, false, slice_of(*out.context, p, b, h) + i0 * ldc, ldc);
    }
    return masked;
}

// Kᵀ (dk×Tk) of every distinct K slice the (batch item, K/V head) pairs read, transposed
// once: every unit's GEMM then packs Kᵀ with vector copies instead of transposing K again
// (the same packed values, so the same bits as Q·Kᵀ from K).
struct TransposedKeys {
    std::vector<std::size_t> slot;  // (b - b0)·G + g → index of its Kᵀ
    std::size_t ld = 0;
    std::unique_ptr<float[]> data;

    explicit TransposedKeys(const Problem& p) : slot((p.b1 - p.b0) * p.G), ld(Matrix::padded_stride(p.Tk)) {
        std::vector<const float*> keys;
        for (std::size_t b = p.b0; b < p.b1; ++b)
            for (std::size_t g = 0; g < p.G; ++g) {
                const float* k = p.k.at(b, g);
                const auto it = std::find(keys.begin(), keys.end(), k);
                slot[(b - p.b0) * p.G + g] = std::size_t(it - keys.begin());
                if (it == keys.end()) keys.push_back(k);
            }
        data.reset(new float[std::max<std::size_t>(1, keys.size() * p.dk * ld)]);
        parallel_for(keys.size(), [&](std::size_t u) {
            float* kt = data.get() + u * p.dk * ld;
            constexpr std::size_t block = 16;  // keys per step: the reads of K stay in cache lines
            for (std::size_t j0 = 0; j0 < p.Tk; j0 += block) {
                const std::size_t j1 = std::min(p.Tk, j0 + block);
                for (std::size_t d = 0; d < p.dk; ++d)
                    for (std::size_t j = j0; j < j1; ++j) kt[d * ld + j] = keys[u][j * p.k.sT + d];
            }
        });
    }
    MatrixView of(const Problem& p, std::size_t b, std::size_t g) const {
        return {data.get() + slot[(b - p.b0) * p.G + g] * p.dk * ld, p.dk, p.Tk, ld};
    }
};

std::size_t run_materialised(const Problem& p, const AttentionSpec& spec, const MaterialisedOut& out) {
    const std::size_t rows = p.r1 - p.r0;
    const TransposedKeys kt(p);
    // Softmax: units of (b, h, block of rows), all handed out to the threads (each unit's
    // kernels run serially), the scores of a unit going through the epilogue and ·V while
    // they are in cache. Normalisation by the sum: whole (b, h) units, so that a zero row
    // sum is reported with its row number in the (b, h).
    const std::size_t rpu = spec.normalize == Normalization::softmax ? materialised_rows_per_unit(p.Tk)
                                                                     : std::max<std::size_t>(rows, 1);
    const std::size_t blocks = std::max<std::size_t>(1, (rows + rpu - 1) / rpu);
    const std::size_t units = (p.b1 - p.b0) * p.H * blocks;
    std::vector<std::size_t> masked(units, 0);
    // A failure (a zero row sum) is reported for the first (b, h) that has one, whatever the
    // thread count, and names it when there is more than one.
    std::vector<std::string> failure(units);
    auto one = [&](std::size_t u) {
        const std::size_t blk = u % blocks, b = p.b0 + u / blocks / p.H, h = u / blocks % p.H;
        const std::size_t i0 = std::min(rows, blk * rpu), i1 = std::min(rows, i0 + rpu);
        try {
            masked[u] = run_materialised_rows(p, spec, b, h, i0, i1, kt.of(p, b, p.kv_head(h)), out);
        } catch (const RuntimeFailure& e) {
            std::string where;
            if (p.batch_dim) where += "batch item " + std::to_string(b);
            if (p.head_dim) where += (where.empty() ? "head " : ", head ") + std::to_string(h);
            failure[u] = where.empty() ? e.what() : where + ": " + e.what();
        }
    };
    // Many units: one per thread (the kernels inside run serially); few: one after the
    // other, each split over the threads. The bits are the same either way.
    if (units >= 2 * std::size_t(current_threads())) {
        parallel_for(units, one);
    } else {
        for (std::size_t u = 0; u < units; ++u) one(u);
    }
    for (const std::string& f : failure)
        if (!f.empty()) throw RuntimeFailure(f);
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

// Mean over heads: ([B',] Tq', Tk) from ([B',] H, Tq', Tk) weights, summed in head order.
Tensor mean_over_heads(const Tensor& weights, const Problem& p) {
    std::vector<std::size_t> dims;
    if (p.batch_dim) dims.push_back(p.b1 - p.b0);
    dims.push_back(p.r1 - p.r0);
    dims.push_back(p.Tk);
    Tensor mean(Shape(dims), Tensor::Uninitialized{});  // head 0 writes every element
    const std::size_t rows = p.r1 - p.r0, ld = weights.row_stride();
    const float inv = 1.0f / float(p.H);
    parallel_for(p.b1 - p.b0, [&](std::size_t bi) {
        float* dst = mean.slice_data(bi);
        for (std::size_t h = 0; h < p.H; ++h) {
            const float* src = weights.slice_data(bi * (p.head_dim ? p.H : 1) + (p.head_dim ? h : 0));
            for (std::size_t i = 0; i < rows; ++i)
                for (std::size_t j = 0; j < p.Tk; ++j)
                    dst[i * ld + j] = h == 0 ? src[i * ld + j] : dst[i * ld + j] + src[i * ld + j];
        }
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < p.Tk; ++j) dst[i * ld + j] *= inv;
    });
    return mean;
}

// ---- split-K decoding (attn/multihead.hpp) ------------------------------------------------

struct FreeFloats {
    void operator()(float* p) const noexcept { aligned_free_floats(p); }
};
using Floats = std::unique_ptr<float[], FreeFloats>;

// The rows of the (batch item b, K/V head g) decode unit: every query head of the group,
// every requested query row; row hh·nq + i is head g·group + hh, query row r0 + i.
std::vector<kernels::DecodeRow> decode_rows(const Problem& p, const AttentionSpec& spec, std::size_t b, std::size_t g) {
    const std::size_t group = p.group(), nq = p.r1 - p.r0;
    std::vector<kernels::DecodeRow> rows(group * nq);
    for (std::size_t hh = 0; hh < group; ++hh)
        for (std::size_t i = 0; i < nq; ++i) {
            const std::size_t h = g * group + hh, gi = p.r0 + i;
            kernels::DecodeRow& r = rows[hh * nq + i];
            r.q = p.q.at(b, h) + gi * p.q.sT;
            r.mask = p.has_mask ? p.mask_words.at(b, h) + gi * p.mask_words.sT : nullptr;
            r.bias = p.has_bias ? p.bias.at(b, h) + gi * p.bias.sT : nullptr;
            r.visible = visible_keys(spec.causal, gi, p.Tq, p.Tk, p.key_limit(spec, b));
        }
    return rows;
}

// Units (batch item, K/V head, key chunk) compute unnormalised partial results; then, per
// (batch item, K/V head), the chunks are merged in key order: with M = max_c m_c,
// out = Σ_c e^(m_c − M)·acc_c / Σ_c e^(m_c − M)·l_c, chunks with nothing allowed
// (m_c = -inf) skipped; no allowed key at all → the masked-row policy, as the fused kernel.
std::size_t run_split_keys(const Problem& p, const AttentionSpec& spec, Tensor& context) {
    const std::size_t group = p.group(), nq = p.r1 - p.r0, rows = group * nq;
    const std::size_t pairs = (p.b1 - p.b0) * p.G;
    if (rows == 0 || pairs == 0) return 0;
    const std::size_t chunk = split_key_chunk(p.dk, p.dv, element_size(p.k.type));
    const std::size_t chunks = std::max<std::size_t>(1, (p.Tk + chunk - 1) / chunk);
    const std::size_t ldacc = (p.dv + 15) / 16 * 16;
    // (batch item, K/V head) pairs per pass, so that the partial results stay near 64 MiB.
    const std::size_t per_pair = chunks * rows * ldacc;
    const std::size_t pass = std::clamp<std::size_t>((std::size_t(16) << 20) / per_pair, 1, pairs);
    Floats acc(aligned_alloc_floats(pass * per_pair));
    std::vector<float> m(pass * chunks * rows), l(pass * chunks * rows);
    const auto decode = kernels::table_of(current_arch()).decode_chunk;
    const std::size_t ldo = context.row_stride();
    std::vector<std::size_t> masked(pairs, 0);
    for (std::size_t first = 0; first < pairs; first += pass) {
        const std::size_t np = std::min(pass, pairs - first);
        parallel_for(np * chunks, [&](std::size_t u) {
            const std::size_t pair = first + u / chunks, c = u % chunks;
            const std::size_t b = p.b0 + pair / p.G, g = pair % p.G;
            const std::vector<kernels::DecodeRow> rws = decode_rows(p, spec, b, g);
            kernels::DecodeArgs a{};
            a.rows = rws.data(), a.nrows = rows;
            a.K = p.k.element_at(b, g), a.ldk = p.k.sT;
            a.V = p.v.element_at(b, g), a.ldv = p.v.sT;
            a.kv_type = to_kernel(p.k.type);
            a.dk = p.dk, a.dv = p.dv, a.scale = p.scale;
            a.k_begin = c * chunk, a.k_end = std::min(p.Tk, (c + 1) * chunk);
            a.acc = acc.get() + u * rows * ldacc, a.ldacc = ldacc;
            a.m = m.data() + u * rows, a.l = l.data() + u * rows;
            decode(a);
        });
        parallel_for(np, [&](std::size_t k) {
            const std::size_t pair = first + k, b = p.b0 + pair / p.G, g = pair % p.G;
            std::vector<double> o(p.dv), mean;
            for (std::size_t row = 0; row < rows; ++row) {
                const std::size_t h = g * group + row / nq, i = row % nq;
                float* out = slice_of(context, p, b, h) + i * ldo;
                const auto at = [&](std::size_t c) { return (k * chunks + c) * rows + row; };
                float M = -std::numeric_limits<float>::infinity();
                for (std::size_t c = 0; c < chunks; ++c) M = std::max(M, m[at(c)]);
                if (M == -std::numeric_limits<float>::infinity()) {
                    ++masked[pair];
                    if (spec.masked_rows == MaskedRowPolicy::uniform && p.Tk > 0) {
                        if (mean.empty()) {  // column means of all Tk rows of V, as the fused kernel
                            mean.assign(p.dv, 0.0);
                            if (p.v.type == ElementType::f16) {
                                const auto* V = static_cast<const std::uint16_t*>(p.v.element_at(b, g));
                                for (std::size_t j = 0; j < p.Tk; ++j)
                                    for (std::size_t col = 0; col < p.dv; ++col)
                                        mean[col] += half_to_float(V[j * p.v.sT + col]);
                            } else {
                                const float* V = p.v.at(b, g);
                                for (std::size_t j = 0; j < p.Tk; ++j)
                                    for (std::size_t col = 0; col < p.dv; ++col) mean[col] += V[j * p.v.sT + col];
                            }
                        }
                        for (std::size_t col = 0; col < p.dv; ++col) out[col] = float(mean[col] / double(p.Tk));
                    } else {
                        const float fill = spec.masked_rows == MaskedRowPolicy::nan && p.Tk > 0
                                               ? std::numeric_limits<float>::quiet_NaN()
                                               : 0.0f;
                        std::fill(out, out + p.dv, fill);
                    }
                    continue;
                }
                std::fill(o.begin(), o.end(), 0.0);
                double L = 0.0;
                for (std::size_t c = 0; c < chunks; ++c) {
                    const float mc = m[at(c)];
                    if (mc == -std::numeric_limits<float>::infinity()) continue;
                    const double w = std::exp(double(mc) - double(M));
                    L += w * double(l[at(c)]);
                    const float* a = acc.get() + at(c) * ldacc;
                    for (std::size_t col = 0; col < p.dv; ++col) o[col] += w * double(a[col]);
                }
                for (std::size_t col = 0; col < p.dv; ++col) out[col] = float(o[col] / L);
            }
        });
    }
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

}  // namespace

std::size_t split_key_chunk(std::size_t dk, std::size_t dv, std::size_t kv_bytes) noexcept {
    // About 128 KiB of K and V rows per chunk: long enough to stream, short enough that a
    // decode step over a few thousand keys still has work for every thread. float16 K/V
    // gets twice the keys (the same bytes).
    const std::size_t keys = 131072 / std::max<std::size_t>((dk + dv) * kv_bytes, 1) / 64 * 64;
    return std::clamp<std::size_t>(keys, 64, 1024);
}

BatchedAttention batched_attention(const TensorView& Q, const KVView& K, const KVView& V,
                                   const AttentionSpec& spec, const AttentionWants& wants) {
    const bool materialise = wants.scores || wants.scaled || wants.weights || wants.weights_mean ||
                             spec.normalize != Normalization::softmax;
    const bool half = K.type == ElementType::f16 || V.type == ElementType::f16;
    // The fused and decoding kernels read float16 K/V as they are, but both K and V of one
    // type; the materialised path (Tq×Tk matrices anyway) widens them once.
    if (half && (materialise || K.type != V.type)) {
        const Tensor k = to_float(K), v = to_float(V);
        return batched_attention(Q, k.view(), v.view(), spec, wants);
    }
    const Problem p = resolve(Q, K, V, spec);
    BatchedAttention r;
    r.batch = p.B, r.heads = p.H, r.kv_heads = p.G;
    const std::size_t rows = p.r1 - p.r0;
    if (!materialise) {
        if (!wants.context) return r;
        // Both kernels write every element of every row (the masked-row policy included): a
        // zero-fill first would only fault the pages in on this thread, before the others start.
        r.context = Tensor(p.result_shape(true, rows, p.dv), Tensor::Uninitialized{});
        r.split_keys = p.Tq <= decode_max_rows;
        r.masked_rows = r.split_keys ? run_split_keys(p, spec, r.context) : run_fused(p, spec, r.context);
        r.fused = true;
        return r;
    }
    // Every element of these is written once by run_materialised: no zero-fill before.
    const Tensor::Uninitialized unset;
    if (wants.scores) r.scores = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.scaled) r.scaled = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.weights || wants.weights_mean) r.weights = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.context) r.context = Tensor(p.result_shape(true, rows, p.dv), unset);
    const MaterialisedOut out{wants.scores ? &r.scores : nullptr, wants.scaled ? &r.scaled : nullptr,
                              r.weights.rank() ? &r.weights : nullptr, wants.context ? &r.context : nullptr};
    r.masked_rows = run_materialised(p, spec, out);
    if (wants.weights_mean) r.weights_mean = mean_over_heads(r.weights, p);
    if (!wants.weights) r.weights = Tensor();
    return r;
}

// ---- projections ----------------------------------------------------------------------------

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

}  // namespace

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

Multihead multihead_attention(const TensorView& X, const TensorView* X_kv, const MultiheadWeights& w,
                              const AttentionSpec& spec, const AttentionWants& wants) {
    const TensorView& Xkv = X_kv ? *X_kv : X;
    if (X.rank() < 2 || X.rank() > 3 || Xkv.rank() != X.rank() || (X.rank() == 3 && Xkv.shape[0] != X.shape[0]))
        throw InputError("X " + X.shape.text() + " and the key/value source " + Xkv.shape.text() +
                         " must both be T×D, or both B×T×D with the same B");
    const std::size_t H = w.heads, G = w.kv_heads ? w.kv_heads : w.heads;
    if (H == 0 || G == 0 || H % G != 0)
        throw InputError(std::to_string(H) + " query heads cannot share " + std::to_string(G) +
                         " key/value heads: the query heads must be a multiple of the key/value heads");
    Multihead m;
    m.queries = linear(X, w.wq, w.bq, "W_q");
    m.keys = linear(Xkv, w.wk, w.bk, "W_k");
    m.values = linear(Xkv, w.wv, w.bv, "W_v");
    if (m.queries.cols() % H != 0 || m.keys.cols() % G != 0 || m.values.cols() % G != 0 ||
        m.queries.cols() / H != m.keys.cols() / G)
        throw InputError("projections with " + std::to_string(m.queries.cols()) + ", " +
                         std::to_string(m.keys.cols()) + " and " + std::to_string(m.values.cols()) +
                         " columns do not split into " + std::to_string(H) + " query heads and " + std::to_string(G) +
                         " key/value heads of equal d_k (W_q needs H·d_k columns, W_k G·d_k, W_v G·d_v)");
    AttentionSpec s = spec;
    s.head_dim = true;
    AttentionWants inner = wants;
    inner.context = true;
    m.attention = batched_attention(split_heads(m.queries, H), split_heads(m.keys, G), split_heads(m.values, G), s, inner);

    // Heads side by side: ([B,] Tq', H·dv).
    const std::size_t dv = m.attention.context.cols();
    m.concat = concat_heads(m.attention.context.view(), X.rank() == 3);
    if (!wants.context) m.attention.context = Tensor();
    if (w.wo) {
        if (w.wo->rank() != 2 || w.wo->shape[0] != H * dv)
            throw InputError("W_O is " + dims(*w.wo) + " but the concatenated heads have H·d_v=" +
                             std::to_string(H * dv) + " columns: W_O must have H·d_v rows");
        m.output = linear(m.concat.view(), w.wo, w.bo, "W_O");
    } else {
        m.output = m.concat;
        if (w.bo) throw InputError("an output bias needs W_O");
    }
    return m;
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

InProjection split_in_projection(const TensorView& in_proj_weight, const TensorView* in_proj_bias) {
    const TensorView& w = in_proj_weight;
    if (w.rank() != 2 || w.shape[0] != 3 * w.shape[1])
        throw InputError("in_proj_weight is " + dims(w) + ": expected 3E×E (the q, k and v blocks stacked)");
    const std::size_t E = w.shape[1];
    InProjection p{transposed_rows(w, 0, E), transposed_rows(w, E, E), transposed_rows(w, 2 * E, E), {}, {}, {}};
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
