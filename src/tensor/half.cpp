// Keys and values in float16, bfloat16 and q8_0 (attn/half.hpp): the rounding and
// quantisation, the owning tensor and its views.
#include "attn/half.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/matrix.hpp"
#include "kernels/float16.hpp"

namespace attn {

std::uint16_t float_to_half(float x) noexcept {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
    const auto sign = std::uint16_t((f >> 16) & 0x8000);
    const std::uint32_t mag = f & 0x7fffffff;
    if (mag > 0x7f800000) return sign | 0x7e00;   // NaN (quiet)
    if (mag >= 0x477ff000) return sign | 0x7c00;  // ≥ 65520 = halfway past 65504: ±inf
    if (mag < 0x38800000) {                       // below 2^-14: a subnormal half (or 0)
        // Units of 2^-24, rounded to nearest even by the default rounding mode (exact scaling).
        const float units = std::bit_cast<float>(mag) * 16777216.0f;
        return sign | std::uint16_t(std::nearbyint(units));
    }
    // Normal: rebias the exponent (127 → 15), keep 10 mantissa bits, round to nearest even (a
    // carry into the exponent is the right result, up to 0x7c00 = inf excluded above).
    std::uint32_t h = (mag - 0x38000000) >> 13;
    const std::uint32_t rest = mag & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
    return sign | std::uint16_t(h);
}

float half_to_float(std::uint16_t h) noexcept { return kernels::half_to_float(h); }

std::string_view element_type_name(ElementType t) noexcept {
    switch (t) {
        case ElementType::f16: return "f16";
        case ElementType::bf16: return "bf16";
        case ElementType::q8_0: return "q8_0";
        case ElementType::f32: break;
    }
    return "f32";
}

std::uint16_t float_to_bfloat16(float x) noexcept {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
    if ((f & 0x7fffffff) > 0x7f800000) return 0x7fc0;  // NaN: torch's quiet NaN
    // Round to nearest even: add 0x7fff plus the lowest kept bit, then drop 16 bits (a carry
    // into the exponent is the right result; past the largest finite value it gives ±inf).
    return std::uint16_t((f + 0x7fff + ((f >> 16) & 1)) >> 16);
}

float bfloat16_to_float(std::uint16_t b) noexcept { return kernels::bfloat16_to_float(b); }

void quantize_q8_0(const float* x, std::size_t n, unsigned char* out) noexcept {
    for (std::size_t b0 = 0; b0 < n; b0 += q8_0_block, out += q8_0_block_bytes) {
        const std::size_t m = std::min(q8_0_block, n - b0);
        float amax = 0.0f;
        for (std::size_t j = 0; j < m; ++j) amax = std::max(amax, std::fabs(x[b0 + j]));
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const std::uint16_t dh = float_to_half(d);
        std::memcpy(out, &dh, sizeof dh);
        for (std::size_t j = 0; j < q8_0_block; ++j)
            out[2 + j] = j < m ? static_cast<unsigned char>(std::int8_t(std::round(x[b0 + j] * id))) : 0;
    }
}

float dequantize_q8_0(const unsigned char* blocks, std::size_t i) noexcept {
    const unsigned char* block = blocks + i / q8_0_block * q8_0_block_bytes;
    std::uint16_t dh;
    std::memcpy(&dh, block, sizeof dh);
    return half_to_float(dh) * float(static_cast<std::int8_t>(block[2 + i % q8_0_block]));
}

// ---- KVView ----------------------------------------------------------------------------

KVView::KVView(const TensorView& v) noexcept : type(ElementType::f32), data(v.data), shape(v.shape), strides(v.strides) {}

TensorView KVView::f32() const noexcept {
    TensorView v;
    v.data = static_cast<const float*>(data);
    v.shape = shape;
    v.strides = strides;
    return v;
}

// ---- HalfTensor ------------------------------------------------------------------------

HalfTensor::HalfTensor(const Shape& shape, const FileMapping& dense, ElementType type) noexcept
    : type_(type),
      shape_(shape),
      stride_(shape.back(1)),
      data_(reinterpret_cast<std::uint16_t*>(static_cast<char*>(dense.start) + dense.data_offset),
            Free{dense.data_offset, dense.bytes}) {}

HalfTensor::HalfTensor(const Shape& shape, ElementType type) : type_(type), shape_(shape) {
    const std::size_t cols = shape.back(1);
    stride_ = type == ElementType::q8_0 ? (cols + q8_0_block - 1) / q8_0_block * q8_0_block
                                        : padded_row_length(cols, stride_quantum);
    Shape padded = shape;
    if (shape.rank() > 0) padded[shape.rank() - 1] = stride_;
    const std::size_t n = std::max<std::size_t>(padded.numel(), 1);
    if (n > (std::size_t(-1) >> 3)) throw std::bad_alloc();
    // q8_0: whole blocks (stride_ a multiple of 32), 34 bytes each: n·34/32 bytes, 2-byte units.
    const std::size_t units = type == ElementType::q8_0 ? (storage_bytes(type, (n + 31) / 32 * 32) + 1) / 2 : n;
    data_.reset(static_cast<std::uint16_t*>(aligned_alloc_bytes(units * sizeof(std::uint16_t))));
    std::memset(data_.get(), 0, units * sizeof(std::uint16_t));
}

std::size_t HalfTensor::slices() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i + 2 < rank(); ++i) n *= shape_[i];
    return n;
}

KVView HalfTensor::view() const noexcept {
    KVView v;
    v.type = type_;
    v.data = data_.get();
    v.shape = shape_;
    const std::size_t r = rank();
    if (r > 0) v.strides[r - 1] = 1;
    if (r > 1) v.strides[r - 2] = stride_;
    for (std::size_t i = r > 2 ? r - 2 : 0; i-- > 0;) v.strides[i] = v.strides[i + 1] * shape_[i + 1];
    return v;
}

namespace {

// Calls fn(element offset in the view, element index in C order) for every element.
template <class Fn>
void for_each_offset(const Shape& shape, const std::array<std::size_t, max_rank>& strides, Fn&& fn) {
    const std::size_t rank = shape.rank(), count = shape.numel();
    std::array<std::size_t, max_rank> index{};
    std::size_t offset = 0;
    for (std::size_t k = 0; k < count; ++k) {
        fn(offset, index);
        for (std::size_t i = rank; i-- > 0;) {
            if (++index[i] < shape[i]) {
                offset += strides[i];
                break;
            }
            offset -= (shape[i] - 1) * strides[i];
            index[i] = 0;
        }
    }
}

}  // namespace

namespace {

[[noreturn]] void out_of_range(float x, ElementType type) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", double(x));
    const std::string range = type == ElementType::bf16 ? "bfloat16's range (about ±3.39e38)"
                              : type == ElementType::q8_0
                                  ? "q8_0's range (a block's scale amax/127 must fit float16: |x| <= 65504·127)"
                                  : "float16's range (±65504)";
    throw InputError("the value " + std::string(value) + " is beyond " + range + ": keep it as f32");
}

}  // namespace

HalfTensor to_kv(const TensorView& v, ElementType type) {
    HalfTensor h(v.shape, type);
    const KVView dst = h.view();
    const std::size_t rank = v.rank();
    if (type == ElementType::q8_0) {  // row by row: gathered (any strides), then quantised
        const std::size_t cols = h.cols();
        std::vector<float> row(h.row_stride());
        auto* out = reinterpret_cast<unsigned char*>(h.data());
        const std::size_t row_bytes = storage_bytes(type, h.row_stride());
        std::size_t r = 0, c = 0;
        for_each_offset(v.shape, v.strides, [&](std::size_t off, const std::array<std::size_t, max_rank>&) {
            row[c] = v.data[off];
            if (++c < cols) return;
            quantize_q8_0(row.data(), cols, out + r * row_bytes);
            for (std::size_t b = 0; b < h.row_stride(); b += q8_0_block) {
                std::uint16_t dh;
                std::memcpy(&dh, out + r * row_bytes + b / q8_0_block * q8_0_block_bytes, sizeof dh);
                if ((dh & 0x7c00) == 0x7c00) {  // the scale overflowed float16
                    float amax = 0.0f;
                    for (std::size_t j = b; j < std::min(cols, b + q8_0_block); ++j) amax = std::max(amax, std::fabs(row[j]));
                    out_of_range(amax, type);
                }
            }
            c = 0, ++r;
        });
        return h;
    }
    std::uint16_t* out = h.data();
    const bool bf16 = type == ElementType::bf16;
    for_each_offset(v.shape, v.strides, [&](std::size_t off, const std::array<std::size_t, max_rank>& idx) {
        std::size_t d = 0;
        for (std::size_t i = 0; i < rank; ++i) d += idx[i] * dst.strides[i];
        const float x = v.data[off];
        const std::uint16_t e = bf16 ? float_to_bfloat16(x) : float_to_half(x);
        if ((e & 0x7fff) == (bf16 ? 0x7f80 : 0x7c00) && std::isfinite(x)) out_of_range(x, type);
        out[d] = e;
    });
    return h;
}

HalfTensor to_half(const TensorView& v) { return to_kv(v, ElementType::f16); }

void round_as(float* x, std::size_t n, ElementType type) {
    if (type == ElementType::q8_0) {  // block by block, as to_kv quantises a row
        for (std::size_t b = 0; b < n; b += q8_0_block) {
            const std::size_t m = std::min(q8_0_block, n - b);
            unsigned char block[q8_0_block_bytes];
            quantize_q8_0(x + b, m, block);
            std::uint16_t dh;
            std::memcpy(&dh, block, sizeof dh);
            if ((dh & 0x7c00) == 0x7c00) {  // the scale overflowed float16
                float amax = 0.0f;
                for (std::size_t j = b; j < b + m; ++j) amax = std::max(amax, std::fabs(x[j]));
                out_of_range(amax, type);
            }
            for (std::size_t j = 0; j < m; ++j) x[b + j] = dequantize_q8_0(block, j);
        }
        return;
    }
    if (type != ElementType::f16 && type != ElementType::bf16) return;  // f32: as it is
    const bool bf16 = type == ElementType::bf16;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t e = bf16 ? float_to_bfloat16(x[i]) : float_to_half(x[i]);
        if ((e & 0x7fff) == (bf16 ? 0x7f80 : 0x7c00) && std::isfinite(x[i])) out_of_range(x[i], type);
        x[i] = bf16 ? bfloat16_to_float(e) : half_to_float(e);
    }
}

Tensor to_float(const KVView& v) {
    if (v.type == ElementType::f32) return to_tensor(v.f32());
    Tensor t(v.shape);
    const TensorView dst = t.view();
    float* out = t.data();
    const auto* in = static_cast<const std::uint16_t*>(v.data);
    const auto* blocks = static_cast<const unsigned char*>(v.data);
    const std::size_t rank = v.rank();
    for_each_offset(v.shape, v.strides, [&](std::size_t off, const std::array<std::size_t, max_rank>& idx) {
        std::size_t d = 0;
        for (std::size_t i = 0; i < rank; ++i) d += idx[i] * dst.strides[i];
        out[d] = v.type == ElementType::f16    ? half_to_float(in[off])
                 : v.type == ElementType::bf16 ? bfloat16_to_float(in[off])
                                               : dequantize_q8_0(blocks, off);
    });
    return t;
}

}  // namespace attn
