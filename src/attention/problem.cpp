// Resolving an attention call (attn/problem.hpp): shapes, broadcasting, lengths and ranges
// checked once, into (batch, head) pointer arithmetic.
#include "attn/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "attention/kernel_vocabulary.hpp"
#include "runtime/system_memory.hpp"

namespace attn {

namespace {

std::string text(std::size_t n) { return std::to_string(n); }

// RoPE's and ALiBi's settings (attn/problem.hpp's Rope, AttentionSpec::alibi) into p.
void resolve_positions(const AttentionSpec& spec, AttentionProblem& p) {
    const Rope& r = spec.rope;
    if (r.theta != 0.0f) {
        if (p.score != ScoreFunction::dot)
            throw InputError(std::string("RoPE rotates the queries and keys of dot-product scores, not of the ") +
                             score_name(p.score) + " score");
        if (!(r.theta > 0.0f) || std::isinf(r.theta))
            throw InputError("rope theta " + std::to_string(r.theta) + ": expected a positive finite base (Llama: 10000)");
        const std::size_t n = r.dims ? r.dims : p.dk;
        if (n % 2 || n > p.dk || n == 0)
            throw InputError("rope dims " + text(n) + " of d_k = " + text(p.dk) +
                             ": RoPE rotates pairs of the leading dims of each head, an even number of at "
                             "most d_k");
        // dynamic's frequencies depend on the sequence's length: the caller turns it into plain
        // RoPE first (rope_at_length, as attn model does for its tokens)
        if (r.scaling.kind == RopeScalingKind::dynamic)
            throw InputError("dynamic RoPE scaling needs the sequence's length: resolve it to plain RoPE first "
                             "(attention/rope.hpp's rope_at_length)");
        if (r.scaling.kind == RopeScalingKind::longrope &&
            (r.scaling.ext_factors.size() != n / 2 || r.scaling.long_factor.size() != n / 2))
            throw InputError("longrope scaling of " + text(n) + " rotated dims needs " + text(n / 2) +
                             " factors in each list, one per frequency (given " + text(r.scaling.ext_factors.size()) +
                             " and " + text(r.scaling.long_factor.size()) + ")");
        p.rope = r;
        p.rope.dims = n;
    }
    if (spec.alibi != 0.0f) {
        if (!(spec.alibi > 0.0f) || std::isinf(spec.alibi))
            throw InputError("alibi max bias " + std::to_string(spec.alibi) + ": expected a positive finite number (BLOOM: 8)");
        p.alibi_slopes = alibi_slopes(p.H, spec.alibi);
        // The kernels compute slope·(j − p) with j − p an exact float32 integer (kernels/alibi.hpp).
        constexpr long long exact = 1LL << 24;
        for (std::size_t b = 0; b < p.B; ++b) {
            const long long first = p.offset(b), last = first + (long long)p.Tq - 1, keys = (long long)p.Tk - 1;
            const long long reach = std::max({std::llabs(first), std::llabs(last), std::llabs(keys - first),
                                              std::llabs(keys - last)});
            if (reach >= exact)
                throw InputError("ALiBi with query positions " + std::to_string(first) + " to " + std::to_string(last) +
                                 " and keys 0 to " + std::to_string(keys) + ": a query and a key " +
                                 std::to_string(reach) + " positions apart, where ALiBi's slope·(key − query) needs " +
                                 "them closer than 2^24 (float32's whole numbers)");
        }
    }
}

}  // namespace

Operand operand_of(const KVView& v, Role role) {
    const std::size_t r = v.rank();
    if (r < 2 || r > 4)
        throw ShapeError(role, "rank", r, r < 2 ? 2 : 4, role,
                         std::string(role_name(role)) + " " + v.shape.text() + " has " + text(r) +
                             " dimensions: expected 2 to 4, read as (batch, heads, rows, columns)");
    Operand o;
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

namespace {

// torch.matmul's rule for one leading dimension of x and y: equal, or 1.
std::size_t broadcast(std::size_t a, std::size_t b, const char* dim, const Operand& x, Role xr, const Operand& y,
                      Role yr) {
    if (a == b || b == 1) return a;
    if (a == 1) return b;
    throw ShapeError(yr, dim, b, a, xr,
                     std::string(role_name(xr)) + " " + x.shape.text() + " and " + role_name(yr) + " " +
                         y.shape.text() + " differ in the " + dim + " dimension (" + text(a) + " and " + text(b) +
                         "): it must be equal, or 1 in one of them");
}

std::size_t resolve_end(std::size_t end, std::size_t size) { return end == IndexRange::npos ? size : end; }

// A mask or bias against the scores (B, H, Tq, Tk): each dimension equal or 1, the last Tk.
void check_mask_like(const Operand& m, Role role, const AttentionProblem& p) {
    const char* dim = m.d != p.Tk                  ? "columns"
                      : m.T != p.Tq && m.T != 1    ? "rows"
                      : m.B != p.B && m.B != 1     ? "batch"
                      : m.H != p.H && m.H != 1     ? "heads"
                                                   : nullptr;
    if (!dim) return;
    const std::string d = dim;
    const std::size_t got = d == "columns" ? m.d : d == "rows" ? m.T : d == "batch" ? m.B : m.H;
    const std::size_t wanted = d == "columns" ? p.Tk : d == "rows" ? p.Tq : d == "batch" ? p.B : p.H;
    ShapeError e(role, d, got, wanted, Role::queries,
                 std::string(role_name(role)) + " " + m.shape.text() + " does not broadcast to the scores (" + text(p.B) +
                     ", " + text(p.H) + ", " + text(p.Tq) + ", " + text(p.Tk) +
                     "): each dimension must be equal or 1, and the last must be Tk");
    std::vector<std::size_t> dims;
    if (p.batch_dim) dims.push_back(p.B), e.against_axes.push_back("batch items");
    if (p.head_dim) dims.push_back(p.H), e.against_axes.push_back("heads");
    dims.push_back(p.Tq), e.against_axes.push_back("queries");
    dims.push_back(p.Tk), e.against_axes.push_back("keys");
    e.against = Shape(dims);
    throw e;
}

// The kernels' view of the mask bits (p.mask's shape, p.mask_words).
void wire_mask(const MaskBits* bits, AttentionProblem& p) {
    TensorView shape;  // the mask's shape, for the checks
    shape.shape = bits->shape();
    p.mask = operand_of(shape, Role::mask);
    const std::size_t words = bits->row_words();
    p.mask_words.data = bits->data();
    p.mask_words.sT = p.mask.T == 1 ? 0 : words;
    p.mask_words.sH = p.mask.H == 1 ? 0 : p.mask.T * words;
    p.mask_words.sB = p.mask.B == 1 ? 0 : p.mask.H * p.mask.T * words;
}

void resolve_mask(const AttentionSpec& spec, AttentionProblem& p) {
    const MaskBits* bits = spec.mask_bits;
    if (!bits) {
        operand_of(*spec.mask, Role::mask);  // the rank checked before the floats are read
        bits = (p.packed_mask = std::make_shared<const MaskBits>(*spec.mask)).get();
    }
    wire_mask(bits, p);
}

void check_lengths(const std::vector<std::size_t>& lengths, const AttentionProblem& p) {
    if (lengths.empty()) return;
    if (lengths.size() != p.B)
        throw ShapeError(Role::lengths, "batch", lengths.size(), p.B, Role::queries,
                         text(lengths.size()) + " lengths for " + text(p.B) +
                             " batch items: give one length per batch item");
    for (std::size_t b = 0; b < p.B; ++b)
        if (lengths[b] > p.Tk)
            throw ShapeError(Role::lengths, "length", lengths[b], p.Tk, Role::keys,
                             "length " + text(lengths[b]) + " of batch item " + text(b) + " exceeds the " + text(p.Tk) +
                                 " keys");
}

// One causal offset per batch item (AttentionSpec::offsets).
std::vector<long long> resolve_offsets(const AttentionSpec& spec, const AttentionProblem& p) {
    std::vector<long long> offsets(p.B, kernels::causal_offset(to_kernel(spec.causal), p.Tq, p.Tk));
    if (spec.offsets.empty()) {
        if (spec.past) return std::vector<long long>(p.B, (long long)spec.past);  // the queries follow the cache
        if (spec.causal == Causal::bottom_right && !spec.lengths.empty())
            for (std::size_t b = 0; b < p.B; ++b) offsets[b] = (long long)spec.lengths[b] - (long long)p.Tq;
        return offsets;
    }
    if (spec.offsets.size() != 1 && spec.offsets.size() != p.B)
        throw ShapeError(Role::offsets, "batch", spec.offsets.size(), p.B, Role::queries,
                         text(spec.offsets.size()) + " causal offsets for " + text(p.B) +
                             " batch items: give one offset, or one per batch item");
    for (std::size_t b = 0; b < p.B; ++b) {
        offsets[b] = spec.offsets[spec.offsets.size() == 1 ? 0 : b];
        if (offsets[b] > max_causal_offset || offsets[b] < -max_causal_offset)
            throw InputError("causal offset " + std::to_string(offsets[b]) + " of batch item " + text(b) +
                             ": expected at most 2^48 in magnitude");
    }
    return offsets;
}

// [begin, end) of `size` from a range; ShapeError when it does not fit.
std::pair<std::size_t, std::size_t> resolve_range(const IndexRange& r, std::size_t size, Role role) {
    const std::size_t b = r.begin, e = resolve_end(r.end, size);
    if (b > e || e > size)
        throw ShapeError(role, "item", e, size, role,
                         std::string(role_name(role)) + " " + text(b) + ":" + text(e) + " are out of range for " +
                             text(size) + " " + role_name(role));
    return {b, e};
}

// A score weight as a matrix (rank 2; v_a: rank 1, or one row or column, as a 1×h row with
// the stride between its entries in `step`).
MatrixView weight_of(const TensorView* w, Role role, const char* score, bool vector, std::size_t* step = nullptr) {
    if (!w)
        throw InputError(std::string("the ") + score + " score needs " + role_name(role));
    const std::size_t r = w->rank();
    if (vector) {
        const bool column = r == 2 && w->shape[1] == 1 && w->shape[0] != 1;
        if (r == 1 || (r == 2 && (w->shape[0] == 1 || column))) {
            const std::size_t n = r == 1 ? w->shape[0] : column ? w->shape[0] : w->shape[1];
            *step = r == 1 ? 1 : column ? w->strides[0] : 1;
            return {w->data, 1, n, n};
        }
    } else if (r == 2) {
        return {w->data, w->shape[0], w->shape[1], w->strides[0]};
    }
    throw ShapeError(role, "rank", r, vector ? 1 : 2, role,
                     std::string(role_name(role)) + " " + w->shape.text() + " has " + text(r) +
                         (vector ? " dimensions: expected a vector of h entries" : " dimensions: expected a matrix"));
}

// `role`'s `dim` ("rows", "columns", "entries") is `got` where `other`'s gives `wanted`.
void check_weight_dim(std::size_t got, std::size_t wanted, Role role, const char* dim, Role other,
                      const std::string& why) {
    if (got != wanted)
        throw ShapeError(role, dim, got, wanted, other,
                         std::string(role_name(role)) + " has " + text(got) + " " + dim + " but " + why + " " +
                             text(wanted));
}

// The score function and its weights against Q (d_q) and K (d_k).
void resolve_score(const AttentionSpec& spec, AttentionProblem& p) {
    p.score = spec.score;
    const char* name = score_name(spec.score);
    const auto unused = [&](const TensorView* w, Role role, bool used) {
        if (w && !used)
            throw InputError(std::string(role_name(role)) + " is a weight of the " +
                             (role == Role::wa ? "general" : "additive") + " score, not of the " + name + " score");
    };
    const bool general = spec.score == ScoreFunction::general, additive = spec.score == ScoreFunction::additive;
    unused(spec.wa, Role::wa, general);
    unused(spec.wa_q, Role::wa_q, additive);
    unused(spec.wa_k, Role::wa_k, additive);
    unused(spec.va, Role::va, additive);
    if (general) {
        p.wa = weight_of(spec.wa, Role::wa, name, false);
        check_weight_dim(p.wa.rows, p.q.d, Role::wa, "rows", Role::queries, "queries have d_q =");
        check_weight_dim(p.wa.cols, p.k.d, Role::wa, "columns", Role::keys, "keys have d_k =");
    } else if (additive) {
        p.wa_q = weight_of(spec.wa_q, Role::wa_q, name, false);
        p.wa_k = weight_of(spec.wa_k, Role::wa_k, name, false);
        const MatrixView va = weight_of(spec.va, Role::va, name, true, &p.va_stride);
        p.va = va.data;
        check_weight_dim(p.wa_q.rows, p.q.d, Role::wa_q, "rows", Role::queries, "queries have d_q =");
        check_weight_dim(p.wa_k.rows, p.k.d, Role::wa_k, "rows", Role::keys, "keys have d_k =");
        check_weight_dim(p.wa_k.cols, p.wa_q.cols, Role::wa_k, "columns", Role::wa_q, "the hidden size h of W_q is");
        check_weight_dim(va.cols, p.wa_q.cols, Role::va, "entries", Role::wa_q, "the hidden size h of W_q is");
    } else if (p.k.d != p.q.d) {
        throw ShapeError(Role::keys, "d_k", p.k.d, p.q.d, Role::queries,
                         "queries " + p.q.shape.text() + " and keys " + p.k.shape.text() +
                             " differ in d_k (the last dimension)");
    }
}

// Sinks: one logit per query head (finite, or -inf: none), softmax only, not with key shards.
void resolve_sinks(const AttentionSpec& spec, AttentionProblem& p) {
    if (spec.sinks.empty()) return;
    if (spec.sinks.size() != p.H)
        throw ShapeError(Role::sinks, "entries", spec.sinks.size(), p.H, Role::queries,
                         text(spec.sinks.size()) + (spec.sinks.size() == 1 ? " sink for " : " sinks for ") +
                             text(p.H) + (p.H == 1 ? " query head" : " query heads") +
                             ": give one sink logit per query head");
    for (std::size_t h = 0; h < p.H; ++h)  // -inf: no sink (e^-inf = 0), the kernels' own default
        if (std::isnan(spec.sinks[h]) || spec.sinks[h] == std::numeric_limits<float>::infinity())
            throw InputError("the sink of head " + text(h) + " is " + std::to_string(spec.sinks[h]) +
                             ": sinks are finite logits, or -inf for none");
    if (spec.normalize != Normalization::softmax)
        throw InputError("sinks join the softmax's denominator: they need softmax normalisation");
    if (spec.key_rows.begin != 0 || spec.key_rows.end != IndexRange::npos)
        throw InputError("sinks are counted once per row, and a key shard's log-sum-exp would count them once per "
                         "shard: compute sinks over all the keys");
    p.sinks = spec.sinks;
}

// Documents: query row i of batch item b takes the id at its position p = i + offset(b) among the
// keys (FlexAttention's document mask with a cache: document_id[q_idx + offset]), so each row of
// the resolved documents is per item when the offsets differ. A query before the first key
// (p < 0: ONNX's padded queries, any causal rule shows them no key) or after the last (p >= Tk) is
// in no document and sees no key. out_rows rows of Tq positions, `none` for those.
struct DocumentPositions {
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::size_t out_rows = 1;
    std::vector<std::size_t> pos;  // out_rows × Tq key positions, or none
};
DocumentPositions document_positions(const AttentionSpec& spec, const AttentionProblem& p) {
    bool same_offsets = true;
    for (std::size_t b = 1; b < p.B; ++b) same_offsets = same_offsets && p.offset(b) == p.offset(0);
    DocumentPositions d;
    d.out_rows = spec.segment_rows == p.B || !same_offsets ? p.B : 1;
    d.pos.resize(d.out_rows * p.Tq);
    for (std::size_t r = 0; r < d.out_rows; ++r)
        for (std::size_t i = 0; i < p.Tq; ++i) {
            const long long at = p.position(r, i);
            d.pos[r * p.Tq + i] = at < 0 || at >= (long long)p.Tk ? DocumentPositions::none : std::size_t(at);
        }
    return d;
}

// The id row of output row r (one row for every item, or one per item).
const long long* ids_of(const AttentionSpec& spec, std::size_t r, std::size_t Tk) {
    return spec.segments.data() + (spec.segment_rows == 1 ? 0 : r) * Tk;
}

// Documents whose ids are not one run each (0 1 0): FlexAttention's rule, key j allowed for query i
// when their ids are equal (the query's at its position), as mask bits (out_rows, 1, Tq, Tk),
// combined with any mask. Exact, but without the key ranges: only the tiles the bits mask entirely
// are skipped.
void document_mask(const AttentionSpec& spec, const DocumentPositions& d, AttentionProblem& p) {
    const std::size_t rows = d.out_rows, Tq = p.Tq, Tk = p.Tk;
    check_available(rows * Tq * Tk);  // the bytes, before they are packed
    std::vector<unsigned char> same(rows * Tq * Tk);
    for (std::size_t r = 0; r < rows; ++r) {
        const long long* id = ids_of(spec, r, Tk);
        for (std::size_t i = 0; i < Tq; ++i) {
            const std::size_t at = d.pos[r * Tq + i];
            for (std::size_t j = 0; j < Tk; ++j)
                same[(r * Tq + i) * Tk + j] = at != DocumentPositions::none && id[at] == id[j];
        }
    }
    MaskBits docs(Shape{rows, 1, Tq, Tk}, same.data());
    const MaskBits* given = spec.mask_bits ? spec.mask_bits : p.packed_mask.get();
    p.packed_mask = std::make_shared<const MaskBits>(given ? MaskBits::both(*given, docs) : std::move(docs));
    p.has_mask = true;
    wire_mask(p.packed_mask.get(), p);
    check_mask_like(p.mask, Role::mask, p);
}

// Documents: ids (segment_rows × Tk, one per key position) into each query row's run [begin, end)
// of keys when each id is one run (the kernels then skip to each block's keys); otherwise
// document_mask.
void resolve_segments(const AttentionSpec& spec, AttentionProblem& p) {
    if (spec.segments.empty()) return;
    const std::size_t rows = spec.segment_rows, T = p.Tk;
    if (rows != 1 && rows != p.B)
        throw ShapeError(Role::segments, "batch", rows, p.B, Role::queries,
                         text(rows) + " rows of segment ids for " + text(p.B) +
                             (p.B == 1 ? " batch item" : " batch items") +
                             ": give one row (every item) or one per batch item");
    if (rows == 0 || spec.segments.size() != rows * T)
        throw ShapeError(Role::segments, "length", rows ? spec.segments.size() / rows : 0, T, Role::keys,
                         text(rows ? spec.segments.size() / rows : 0) + " segment ids per row for " + text(T) +
                             " key positions: give one document id per key position");
    const DocumentPositions d = document_positions(spec, p);
    // Each id row's runs: run_begin/run_end of every key position.
    std::vector<std::size_t> run_begin(rows * T), run_end(rows * T);
    for (std::size_t r = 0; r < rows; ++r) {
        const long long* id = spec.segments.data() + r * T;
        std::set<long long> seen;  // the ids of the runs so far
        for (std::size_t s = 0; s < T;) {
            std::size_t e = s + 1;
            while (e < T && id[e] == id[s]) ++e;
            if (!seen.insert(id[s]).second) return document_mask(spec, d, p);  // a document in two runs
            for (std::size_t j = s; j < e; ++j) run_begin[r * T + j] = s, run_end[r * T + j] = e;
            s = e;
        }
    }
    p.doc_begins.resize(d.out_rows * p.Tq), p.doc_ends.resize(d.out_rows * p.Tq);
    for (std::size_t r = 0; r < d.out_rows; ++r) {
        const std::size_t src = (rows == 1 ? 0 : r) * T;
        for (std::size_t i = 0; i < p.Tq; ++i) {
            // No document: an empty range at 0 before the keys, at Tk after them (the bounds stay
            // non-decreasing in i, as the kernels' blocks need).
            const std::size_t at = d.pos[r * p.Tq + i];
            const std::size_t edge = p.position(r, i) < 0 ? 0 : T;
            p.doc_begins[r * p.Tq + i] = at == DocumentPositions::none ? edge : run_begin[src + at];
            p.doc_ends[r * p.Tq + i] = at == DocumentPositions::none ? edge : run_end[src + at];
        }
    }
    p.doc_rows = d.out_rows;
}

}  // namespace

const char* score_name(ScoreFunction s) noexcept {
    switch (s) {
        case ScoreFunction::general: return "general";
        case ScoreFunction::additive: return "additive";
        case ScoreFunction::cosine: return "cosine";
        case ScoreFunction::dot: break;
    }
    return "dot";
}

float default_scale_of(ScoreFunction s, std::size_t d_k) noexcept {
    return s == ScoreFunction::dot || s == ScoreFunction::general ? default_scale(d_k) : 1.0f;
}

float default_scale(std::size_t d_k) noexcept { return d_k ? float(1.0 / std::sqrt(double(d_k))) : 1.0f; }

std::optional<float> named_scale(std::string_view name, std::size_t d_k) noexcept {
    if (name == "auto") return default_scale(d_k);
    if (name == "none") return 1.0f;
    return std::nullopt;
}

const char* role_name(Role role) noexcept {
    switch (role) {
        case Role::queries: return "queries";
        case Role::keys: return "keys";
        case Role::values: return "values";
        case Role::mask: return "mask";
        case Role::bias: return "bias";
        case Role::lengths: return "lengths";
        case Role::query_rows: return "query rows";
        case Role::batch_items: return "batch items";
        case Role::embeddings: return "embeddings";
        case Role::kv_embeddings: return "key/value embeddings";
        case Role::wq: return "W_q";
        case Role::wk: return "W_k";
        case Role::wv: return "W_v";
        case Role::bq: return "b_q";
        case Role::bk: return "b_k";
        case Role::bv: return "b_v";
        case Role::wa: return "W_a";
        case Role::wa_q: return "W_q of the additive score";
        case Role::wa_k: return "W_k of the additive score";
        case Role::va: return "v_a";
        case Role::key_rows: return "key rows";
        case Role::sinks: return "sinks";
        case Role::segments: return "segments";
        case Role::offsets: return "causal offsets";
        case Role::past_keys: return "cached keys";
        case Role::past_values: return "cached values";
    }
    return "?";
}

long long AttentionProblem::offset(std::size_t b) const noexcept {
    return offsets.empty() ? kernels::causal_offset(to_kernel(causal), Tq, Tk) : offsets[b];
}

KeyRange AttentionProblem::keys(std::size_t b, std::size_t i) const noexcept {
    const kernels::KeyRange r = kernels::in_document(
        kernels::keys_at(to_kernel(causal), to_kernel(window), position(b, i), Tk, key_limit(b), k0), doc_begin(b),
        doc_end(b), i);
    return {r.begin, r.end};
}

float AttentionProblem::sink(std::size_t h) const noexcept {
    return sinks.empty() ? -std::numeric_limits<float>::infinity() : sinks[h];
}

std::vector<float> alibi_slopes(std::size_t heads, float max_bias) {
    std::vector<float> slopes;
    if (heads == 0) return slopes;
    std::size_t n = 1;  // the largest power of two <= heads
    while (n * 2 <= heads) n *= 2;
    // The bases in float32, as BLOOM's torch.tensor(2 ** (-(2 ** -(log2(n) - 3))), float32)
    // (= 2^(−8/n)), their powers rounded once.
    const float base = float(std::exp2(-double(max_bias) / double(n)));
    const float extra = float(std::exp2(-double(max_bias) / double(2 * n)));
    for (std::size_t h = 0; h < heads; ++h)
        slopes.push_back(h < n ? float(std::pow(double(base), double(h + 1)))
                               : float(std::pow(double(extra), double(2 * (h - n) + 1))));
    return slopes;
}

bool AttentionProblem::allowed(std::size_t b, std::size_t h, std::size_t i, std::size_t j) const noexcept {
    const KeyRange r = keys(b, i);
    if (j < r.begin || j >= r.end) return false;
    if (has_mask) {
        const std::uint64_t* row = mask_words.at(b, h) + i * mask_words.sT;
        if (!((row[j / 64] >> (j % 64)) & 1u)) return false;
    }
    return !has_bias || bias.row(b, h, i)[j] != -std::numeric_limits<float>::infinity();
}

Shape AttentionProblem::result_shape(bool with_heads, std::size_t rows, std::size_t cols) const {
    std::vector<std::size_t> dims;
    if (batch_dim) dims.push_back(b1 - b0);
    if (with_heads && head_dim) dims.push_back(H);
    dims.push_back(rows);
    dims.push_back(cols);
    return Shape(dims);
}

void select_ranges(AttentionProblem& p, const IndexRange& query_rows, const IndexRange& batch_items) {
    std::tie(p.b0, p.b1) = resolve_range(batch_items, p.B, Role::batch_items);
    std::tie(p.r0, p.r1) = resolve_range(query_rows, p.Tq, Role::query_rows);
}

AttentionProblem resolve_attention(const TensorView& Q, const KVView& K, const KVView& V, const AttentionSpec& spec) {
    AttentionProblem p;
    p.q = operand_of(Q, Role::queries);
    p.k = operand_of(K, Role::keys);
    p.v = operand_of(V, Role::values);
    resolve_score(spec, p);
    if (p.v.T != p.k.T)
        throw ShapeError(Role::values, "length", p.v.T, p.k.T, Role::keys,
                         "keys " + p.k.shape.text() + " and values " + p.v.shape.text() +
                             " differ in length: every key needs a value");
    p.Tq = p.q.T, p.Tk = p.k.T, p.dk = p.k.d, p.dv = p.v.d;
    p.B = broadcast(p.q.B, p.k.B, "batch", p.q, Role::queries, p.k, Role::keys);
    p.B = broadcast(p.B, p.v.B, "batch", p.q, Role::queries, p.v, Role::values);
    p.G = broadcast(p.k.H, p.v.H, "heads", p.k, Role::keys, p.v, Role::values);
    if (p.q.H == p.G || p.G == 1) {
        p.H = p.q.H;
    } else if (p.q.H == 1) {
        p.H = p.G;  // one query head broadcast to every K/V head
    } else if (p.q.H % p.G == 0) {
        p.H = p.q.H;  // grouped-query
    } else {
        throw ShapeError(Role::queries, "heads", p.q.H, p.G, Role::keys,
                         "queries " + p.q.shape.text() + " have " + text(p.q.H) + " heads and keys " +
                             p.k.shape.text() + " have " + text(p.G) +
                             ": the query heads must be a multiple of the key/value heads");
    }
    p.has_mask = spec.mask_bits || spec.mask;
    p.has_bias = spec.bias != nullptr;
    if (p.has_mask) resolve_mask(spec, p);
    if (p.has_bias) p.bias = operand_of(*spec.bias, Role::bias);
    // The mask and bias may carry the batch dimension alone (e.g. (B, 1, 1, Tk) padding).
    bool batch_from_mask = false;
    for (const Operand* m : {p.has_mask ? &p.mask : nullptr, p.has_bias ? &p.bias : nullptr})
        if (m && m->B != 1 && p.B == 1) p.B = m->B, batch_from_mask = true;
    p.batch_dim = Q.rank() == 4 || K.rank() == 4 || V.rank() == 4 || batch_from_mask;
    p.head_dim = spec.head_axis == HeadAxis::always ||
                 (spec.head_axis == HeadAxis::by_rank && (Q.rank() >= 3 || K.rank() >= 3 || V.rank() >= 3));
    if (spec.head_axis == HeadAxis::never && p.H != 1)
        throw ShapeError(Role::queries, "heads", p.H, 1, Role::queries,
                         "results without a head dimension need one head, not " + text(p.H));
    if (p.has_mask) check_mask_like(p.mask, Role::mask, p);
    if (p.has_bias) check_mask_like(p.bias, Role::bias, p);
    check_lengths(spec.lengths, p);

    p.scale = spec.scale ? *spec.scale : default_scale_of(p.score, p.dk);
    if (!(spec.softcap == 0.0f || spec.softcap >= std::numeric_limits<float>::min()) || std::isinf(spec.softcap))
        throw InputError("softcap " + std::to_string(spec.softcap) +
                         ": expected 0 (none) or a positive finite number of at least FLT_MIN (1/softcap finite)");
    p.softcap = spec.softcap;
    p.causal = spec.causal;
    p.window = spec.window;
    if (spec.past > p.Tk)
        throw ShapeError(Role::past_keys, "length", spec.past, p.Tk, Role::keys,
                         text(spec.past) + " cached keys but only " + text(p.Tk) +
                             " keys in all: the cache is the first rows of the keys");
    p.past = spec.past;
    p.offsets = resolve_offsets(spec, p);
    if (spec.softmax_f64 && spec.normalize != Normalization::softmax)
        throw InputError("a float64 softmax with normalisation by the sum: there is no softmax");
    p.softmax_f64 = spec.softmax_f64;
    resolve_positions(spec, p);
    p.lengths = spec.lengths;
    p.normalize = spec.normalize;
    p.masked_rows = spec.masked_rows;
    select_ranges(p, spec.query_rows, spec.batch_items);
    std::tie(p.k0, p.k1) = resolve_range(spec.key_rows, p.Tk, Role::key_rows);
    resolve_sinks(spec, p);
    resolve_segments(spec, p);
    return p;
}

}  // namespace attn
