// Joining tensors along one axis (attn/concat.hpp).
#include "attn/concat.hpp"

#include <cstring>

namespace attn {

namespace {

// Copies every row of `src` into `dst`, shifted by `offset` along `axis`.
void place(const TensorView& src, Tensor& dst, std::size_t axis, std::size_t offset) {
    const std::size_t rank = src.rank();
    const TensorView out = dst.view();
    const std::size_t cols = src.cols();
    std::size_t rows_all = 1;
    for (std::size_t i = 0; i + 1 < rank; ++i) rows_all *= src.shape[i];
    std::vector<std::size_t> index(rank, 0);  // of the current row; index[rank - 1] stays 0
    for (std::size_t n = 0; n < rows_all; ++n) {
        const float* from = src.data;
        float* to = dst.data();
        for (std::size_t i = 0; i < rank; ++i) {
            from += index[i] * src.strides[i];
            to += (index[i] + (i == axis ? offset : 0)) * out.strides[i];
        }
        std::memcpy(to, from, cols * sizeof(float));
        for (std::size_t i = rank - 1; i-- > 0;) {
            if (++index[i] < src.shape[i]) break;
            index[i] = 0;
        }
    }
}

}  // namespace

bool resolve_axis(long long axis, std::size_t rank, std::size_t& resolved) noexcept {
    const long long r = static_cast<long long>(rank);
    if (axis < -r || axis >= r) return false;
    resolved = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
    return true;
}

Tensor concatenate(const std::vector<TensorView>& parts, std::size_t axis) {
    const Shape& first = parts.at(0).shape;
    std::vector<std::size_t> joined = first.to_vector();
    joined.at(axis) = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Shape& s = parts[k].shape;
        const std::string which = "part " + std::to_string(k) + " " + s.text();
        if (s.rank() != first.rank())
            throw JoinError(k, true, s.rank(), s.rank(), first.rank(),
                            "cannot join " + which + " to " + first.text() + ": " + std::to_string(s.rank()) +
                                " dimensions instead of " + std::to_string(first.rank()));
        for (std::size_t i = 0; i < s.rank(); ++i)
            if (i != axis && s[i] != first[i])
                throw JoinError(k, false, i, s[i], first[i],
                                "cannot join " + which + " to " + first.text() + " along axis " +
                                    std::to_string(axis) + ": dimension " + std::to_string(i) + " is " +
                                    std::to_string(s[i]) + ", not " + std::to_string(first[i]));
        joined[axis] += s[axis];
    }
    Tensor result(Shape(joined), Tensor::Uninitialized{});  // every element is placed below
    std::size_t offset = 0;
    for (const TensorView& t : parts) {
        place(t, result, axis, offset);
        offset += t.shape[axis];
    }
    return result;
}

}  // namespace attn
