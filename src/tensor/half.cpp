// float16 keys and values (attn/half.hpp): the rounding, the owning tensor and its views.
#include "attn/half.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>

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

HalfTensor::HalfTensor(const Shape& shape, const FileMapping& dense) noexcept
    : shape_(shape),
      stride_(shape.back(1)),
      data_(reinterpret_cast<std::uint16_t*>(static_cast<char*>(dense.start) + dense.data_offset),
            Free{dense.data_offset, dense.bytes}) {}

HalfTensor::HalfTensor(const Shape& shape) : shape_(shape) {
    const std::size_t cols = shape.back(1);
    stride_ = padded_row_length(cols, stride_quantum);
    Shape padded = shape;
    if (shape.rank() > 0) padded[shape.rank() - 1] = stride_;
    const std::size_t n = std::max<std::size_t>(padded.numel(), 1);
    if (n > (std::size_t(-1) >> 2)) throw std::bad_alloc();
    data_.reset(static_cast<std::uint16_t*>(aligned_alloc_bytes(n * sizeof(std::uint16_t))));
    std::memset(data_.get(), 0, n * sizeof(std::uint16_t));
}

std::size_t HalfTensor::slices() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i + 2 < rank(); ++i) n *= shape_[i];
    return n;
}

KVView HalfTensor::view() const noexcept {
    KVView v;
    v.type = ElementType::f16;
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

HalfTensor to_half(const TensorView& v) {
    HalfTensor h(v.shape);
    const KVView dst = h.view();
    std::uint16_t* out = h.data();
    const std::size_t rank = v.rank();
    for_each_offset(v.shape, v.strides, [&](std::size_t off, const std::array<std::size_t, max_rank>& idx) {
        std::size_t d = 0;
        for (std::size_t i = 0; i < rank; ++i) d += idx[i] * dst.strides[i];
        out[d] = float_to_half(v.data[off]);
    });
    return h;
}

Tensor to_float(const KVView& v) {
    if (v.type == ElementType::f32) return to_tensor(v.f32());
    Tensor t(v.shape);
    const TensorView dst = t.view();
    float* out = t.data();
    const auto* in = static_cast<const std::uint16_t*>(v.data);
    const std::size_t rank = v.rank();
    for_each_offset(v.shape, v.strides, [&](std::size_t off, const std::array<std::size_t, max_rank>& idx) {
        std::size_t d = 0;
        for (std::size_t i = 0; i < rank; ++i) d += idx[i] * dst.strides[i];
        out[d] = half_to_float(in[off]);
    });
    return t;
}

}  // namespace attn
