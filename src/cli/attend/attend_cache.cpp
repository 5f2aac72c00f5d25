// The K/V cache of attn attend (attend_cache.hpp).
#include "cli/attend/attend_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "attn/half.hpp"
#include "attn/io.hpp"
#include "cli/option_values.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

namespace {

// A view's extent in dimension i of its (B, G, T, d) reading (missing leading dimensions: 1).
std::size_t dim4(const KVView& v, std::size_t i) { return v.shape.back(4 - i); }
std::size_t stride4(const KVView& v, std::size_t i) {
    return 4 - i <= v.rank() ? v.strides[v.rank() - (4 - i)] : 0;
}

// past ++ now along the key axis, into out (now's shape with P + N rows, dense slices).
template <class T, class Out>
void join(const KVView& past, const KVView& now, Out& out) {
    const std::size_t B = dim4(now, 0), G = dim4(now, 1), P = dim4(past, 2), N = dim4(now, 2), d = dim4(now, 3);
    T* base = reinterpret_cast<T*>(out.data());
    const std::size_t ld = out.row_stride();
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t g = 0; g < G; ++g) {
            T* dst = base + ((b * G + g) * (P + N)) * ld;
            for (const KVView* src : {&past, &now}) {
                const std::size_t rows = dim4(*src, 2);
                const T* s = static_cast<const T*>(src->data) + b * stride4(*src, 0) + g * stride4(*src, 1);
                for (std::size_t t = 0; t < rows; ++t, dst += ld)
                    std::memcpy(dst, s + t * stride4(*src, 2), d * sizeof(T));
            }
        }
}

// The present cache: past ++ now as a tensor of now's rank (at least 2) and element type.
io::KVInput present(const KVView& past_in, const KVView& now_in, const char* flag, const char* new_flag, bool widen) {
    // With --kv-dtype both are stored again after the join (store_kv): different types are
    // joined as float32.
    Tensor past32, now32;
    const bool mixed = past_in.type != now_in.type && widen;
    if (mixed) past32 = to_float(past_in), now32 = to_float(now_in);
    const KVView past = mixed ? KVView(past32.view()) : past_in, now = mixed ? KVView(now32.view()) : now_in;
    if (past.type != now.type)
        throw InputError(std::string(flag) + " and " + new_flag + " differ in element type (" +
                         std::string(element_type_name(past.type)) + " and " + std::string(element_type_name(now.type)) +
                         "): give both in one type, or --kv-dtype");
    // Named as (B, G, P, d), the leading dimensions of a shorter cache being 1, so that a
    // (G, P, d) cache beside a batched -k says which count differs.
    const auto as4 = [](const KVView& v) {
        return "(" + std::to_string(dim4(v, 0)) + ", " + std::to_string(dim4(v, 1)) + ", " + std::to_string(dim4(v, 2)) +
               ", " + std::to_string(dim4(v, 3)) + ")";
    };
    for (std::size_t i : {0, 1, 3})
        if (dim4(past, i) != dim4(now, i))
            throw InputError(std::string(flag) + " is " + past.shape.text() + ", as (B, G, P, d) " + as4(past) + ": its " +
                             (i == 0 ? "batch items" : i == 1 ? "heads" : "last dimension") + " (" +
                             std::to_string(dim4(past, i)) + ") must match " + new_flag + "'s " + as4(now) + " (" +
                             std::to_string(dim4(now, i)) + ")");
    Shape shape = now.shape;
    shape[shape.rank() - 2] = dim4(past, 2) + dim4(now, 2);
    io::KVInput out;
    if (now.type != ElementType::f32) {  // 16-bit types (q8_0 is made after the join, store_kv)
        out.f16 = HalfTensor(shape, now.type);
        join<std::uint16_t>(past, now, out.f16);
    } else {
        out.f32 = Tensor(shape);
        join<float>(past, now, out.f32);
    }
    return out;
}

// A cache given for -x as --show keys,values print it, ([B,] [G,] P, d) (B with a batched -x, G
// with --heads), or as HF's (B, G, P, d), read as (B, G, P, d): missing axes of extent 1.
KVView cache_view(const KVView& v, const AttendInputs& a, const char* flag) {
    const std::size_t shown = 2 + (a.batched ? 1 : 0) + (a.heads_given ? 1 : 0);
    if (v.rank() != shown && v.rank() != 4)
        throw InputError(std::string(flag) + " is " + v.shape.text() + ": with -x a cache is " +
                         (a.batched ? "B×" : "") + (a.heads_given ? "G×" : "") + "P×d as --show keys,values print it" +
                         (shown == 4 ? "" : ", or B×G×P×d"));
    if (v.rank() == 4) return v;
    KVView out = v;
    std::size_t dims[4] = {1, 1, 0, 0}, strides[4] = {0, 0, 0, 0};
    std::size_t src = 0;
    for (std::size_t axis = 0; axis < 4; ++axis) {
        const bool present = axis >= 2 || (axis == 0 ? a.batched : a.heads_given);
        if (present) dims[axis] = v.shape[src], strides[axis] = v.strides[src], ++src;
    }
    out.shape = Shape{dims[0], dims[1], dims[2], dims[3]};
    for (std::size_t axis = 0; axis < 4; ++axis) out.strides[axis] = strides[axis];
    return out;
}

// -x: the cache read and kept for the projections (multihead.hpp's KVCache); its shapes are checked
// against the projected heads when the problem is resolved.
void keep_cache(io::KVInput past_k, io::KVInput past_v, const KVView& pkv, const KVView& pvv, AttendInputs& a) {
    a.past_k = std::move(past_k), a.past_v = std::move(past_v);
    a.cache.k = cache_view(pkv, a, "--past-k");
    a.cache.v = cache_view(pvv, a, "--past-v");
    a.past = a.cache.k.shape[2];
    a.Tk += a.past;
}

// An .npy file cache of length 0 (([B,] G, 0, d) or 0×d: ONNX's past_key and HF's cache before
// the first token), which the readers refuse as an empty array: a view of its shape, no data (the
// element type then the new keys' and values'). Nothing for any other file or form (standard
// input, an archive's member: the readers' error).
std::optional<KVView> empty_npy_cache(const std::string& path) {
    if (io::reads_standard_input(path)) return std::nullopt;
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) return std::nullopt;
    const auto size = static_cast<std::size_t>(file.tellg());
    std::string head(std::min<std::size_t>(size, 12), '\0');
    file.seekg(0).read(head.data(), std::streamsize(head.size()));
    const std::size_t header = io::npy_header_size(head);
    if (header == 0 || header > size) return std::nullopt;  // not an .npy: the readers' error
    head.resize(header);
    file.seekg(0).read(head.data(), std::streamsize(header));
    const std::optional<Shape> shape = file ? io::npy_declared_shape(head) : std::nullopt;
    if (!shape || shape->rank() < 2 || shape->back(2) != 0) return std::nullopt;
    for (std::size_t i = 0; i < shape->rank(); ++i)
        if (i != shape->rank() - 2 && (*shape)[i] == 0) return std::nullopt;  // empty elsewhere: the readers' error
    if (size > header)
        throw InputError(path + ": " + std::to_string(size - header) + " unexpected bytes after the array data (an empty "
                         "cache, shape " + shape->text() + ", has none)");
    static const float none = 0.0f;  // no element is read: every offset into it is 0
    KVView v;
    v.data = &none, v.shape = *shape;
    for (std::size_t i = shape->rank(), stride = 1; i-- > 0;) v.strides[i] = stride, stride *= (*shape)[i];
    return v;
}

}  // namespace

void prepend_cache(const cxxopts::ParseResult& r, InputNames& names, AttendInputs& a) {
    const bool pk = r.count("past-k") > 0, pv = r.count("past-v") > 0;
    if (!pk && !pv) return;
    if (pk != pv) throw UsageError(std::string("a K/V cache needs both --past-k and --past-v: ") +
                                   (pk ? "--past-v" : "--past-k") + " is missing");
    // --causal (any alignment) is then ONNX's rule with a cache: j <= i + P (the problem's past).
    // An empty cache (P = 0) is read from its header: the same result as none, its shape checked
    // (and the options a cache excludes allowed, as without one).
    const std::string pk_path = names.claim(r["past-k"].as<std::string>(), "--past-k");
    const std::string pv_path = names.claim(r["past-v"].as<std::string>(), "--past-v");
    std::optional<KVView> pk_empty = empty_npy_cache(pk_path), pv_empty = empty_npy_cache(pv_path);
    for (const char* o : {"causal-offset", "key-rows", "lengths"})
        if (r.count(o) && !(pk_empty && pv_empty))
            throw UsageError(std::string("--past-k/--past-v set the causal offset to the cache's length and are not "
                                         "supported with --") + o);
    io::KVInput past_k = pk_empty ? io::KVInput{} : io::read_kv_tensor(pk_path, 4);
    io::KVInput past_v = pv_empty ? io::KVInput{} : io::read_kv_tensor(pv_path, 4);
    if (!a.embeddings) {  // the new keys' and values' type: no element type to differ in
        if (pk_empty) pk_empty->type = a.k_view().type;
        if (pv_empty) pv_empty->type = a.v_view().type;
    }
    const KVView pkv = pk_empty ? *pk_empty : past_k.view(), pvv = pv_empty ? *pv_empty : past_v.view();
    if (pkv.rank() < 2 || pvv.rank() < 2)
        throw InputError("--past-k and --past-v are ([B,] G, P, d) or P×d: not vectors");
    if (pkv.shape.back(2) != pvv.shape.back(2))
        throw InputError("--past-k has " + std::to_string(pkv.shape.back(2)) + " cached keys but --past-v " +
                         std::to_string(pvv.shape.back(2)) + " cached values: they must match");
    if (a.embeddings) return keep_cache(std::move(past_k), std::move(past_v), pkv, pvv, a);
    const KVView k = a.k_view(), v = a.v_view();
    a.past = pkv.shape.back(2);
    const bool widen = r.count("kv-dtype") > 0;
    io::KVInput new_k = present(pkv, k, "--past-k", "-k", widen), new_v = present(pvv, v, "--past-v", "-v", widen);
    a.k = std::move(new_k), a.v = std::move(new_v);
    a.kv_split = true;  // the present cache holds the heads as a dimension (already split)
}

ElementType parse_kv_dtype(const std::string& name) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::q8_0})
        if (name == element_type_name(t)) return t;
    throw UsageError("invalid --kv-dtype '" + name + "': expected f32, f16, bf16 or q8_0" +
                     did_you_mean(name, option_names::kv_dtype));
}

void store_kv(const cxxopts::ParseResult& r, AttendInputs& a) {
    if (!r.count("kv-dtype")) {
        // K/V stay as read (16-bit ones too): with --rope, K is rounded to its type after its
        // rotation, as --kv-dtype of that type does (the rotated keys stayed float32).
        if (r.count("rope") && !a.embeddings) a.keys_after_rope = a.k_view().type;
        return;
    }
    const ElementType type = parse_kv_dtype(r["kv-dtype"].as<std::string>());
    if (a.embeddings) {  // K and V kept so once projected (the cache with them), as an engine caches them
        a.projected_kv = type;  // with RoPE, K after its rotation (multihead_attention)
        return;
    }
    for (auto [kv, flag] : {std::pair{&a.k, "-k"}, std::pair{&a.v, "-v"}}) {
        // The heads split first (packed --heads inputs): q8_0 blocks run along each head's d.
        const KVView view = kv == &a.k ? a.k_view() : a.v_view();
        a.kv_f32.push_back(to_float(view));  // the values as read, for --show kv-error
        // With --rope, K is kept as --kv-dtype after its rotation (keys_after_rope): as read until then.
        if (kv == &a.k && r.count("rope")) a.keys_after_rope = type;
        const ElementType as = kv == &a.k && a.keys_after_rope != ElementType::f32 ? view.type : type;
        if (view.type == as && !a.packed) continue;  // packed: stored split, as kv_split says below
        io::KVInput stored;
        try {
            if (as == ElementType::f32) stored.f32 = to_float(view);
            else stored.f16 = to_kv(a.kv_f32.back().view(), as);
        } catch (const InputError& e) {
            throw InputError(std::string(flag) + ": " + e.what());
        }
        *kv = std::move(stored);
    }
    a.kv_split = a.kv_split || a.packed;  // the stored tensors hold the heads as a dimension
}

}  // namespace attn::cli
