// The K/V cache of attn attend (attend_cache.hpp).
#include "cli/attend/attend_cache.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "attn/half.hpp"
#include "attn/io.hpp"

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
io::KVInput present(const KVView& past, const KVView& now, const char* flag, const char* new_flag) {
    if (past.type != now.type)
        throw InputError(std::string(flag) + " and " + new_flag +
                         " differ in element type (float16 and float32): give both in one type");
    for (std::size_t i : {0, 1, 3})
        if (dim4(past, i) != dim4(now, i))
            throw InputError(std::string(flag) + " is " + past.shape.text() + ": its " +
                             (i == 0 ? "batch items" : i == 1 ? "heads" : "last dimension") + " must match " +
                             new_flag + "'s (" + std::to_string(dim4(now, i)) + ")");
    Shape shape = now.shape;
    shape[shape.rank() - 2] = dim4(past, 2) + dim4(now, 2);
    io::KVInput out;
    if (now.type == ElementType::f16) {
        out.f16 = HalfTensor(shape);
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
void keep_cache(io::KVInput past_k, io::KVInput past_v, AttendInputs& a) {
    a.past_k = std::move(past_k), a.past_v = std::move(past_v);
    a.cache.k = cache_view(a.past_k.view(), a, "--past-k");
    a.cache.v = cache_view(a.past_v.view(), a, "--past-v");
    a.past = a.cache.k.shape[2];
    a.Tk += a.past;
}

}  // namespace

void prepend_cache(const cxxopts::ParseResult& r, InputNames& names, AttendInputs& a) {
    const bool pk = r.count("past-k") > 0, pv = r.count("past-v") > 0;
    if (!pk && !pv) return;
    if (pk != pv) throw UsageError(std::string("a K/V cache needs both --past-k and --past-v: ") +
                                   (pk ? "--past-v" : "--past-k") + " is missing");
    for (const char* o : {"causal-offset", "key-rows", "lengths"})
        if (r.count(o))
            throw UsageError(std::string("--past-k/--past-v set the causal offset to the cache's length and are not "
                                         "supported with --") + o);
    // --causal (any alignment) is then ONNX's rule with a cache: j <= i + P (the problem's past).
    io::KVInput past_k = io::read_kv_tensor(names.claim(r["past-k"].as<std::string>(), "--past-k"), 4);
    io::KVInput past_v = io::read_kv_tensor(names.claim(r["past-v"].as<std::string>(), "--past-v"), 4);
    const KVView pkv = past_k.view(), pvv = past_v.view();
    if (pkv.rank() < 2 || pvv.rank() < 2)
        throw InputError("--past-k and --past-v are ([B,] G, P, d) or P×d: not vectors");
    if (pkv.shape.back(2) != pvv.shape.back(2))
        throw InputError("--past-k has " + std::to_string(pkv.shape.back(2)) + " cached keys but --past-v " +
                         std::to_string(pvv.shape.back(2)) + " cached values: they must match");
    if (a.embeddings) return keep_cache(std::move(past_k), std::move(past_v), a);
    const KVView k = a.k_view(), v = a.v_view();
    a.past = pkv.shape.back(2);
    io::KVInput new_k = present(pkv, k, "--past-k", "-k"), new_v = present(pvv, v, "--past-v", "-v");
    a.k = std::move(new_k), a.v = std::move(new_v);
    a.kv_split = true;  // the present cache holds the heads as a dimension (already split)
}

}  // namespace attn::cli
