// Joining tensors along one axis, as numpy.concatenate and torch.cat.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/tensor.hpp"

namespace attn {

// A part that does not join: its rank differs from the first part's (dimension = its rank),
// or its extent `got` in `dimension` is not the first part's `wanted`. what() names parts by
// index and shape; a caller that knows their names words it its own way.
class JoinError : public InputError {
public:
    JoinError(std::size_t part, bool rank, std::size_t dimension, std::size_t got, std::size_t wanted,
              const std::string& message)
        : InputError(message), part(part), rank(rank), dimension(dimension), got(got), wanted(wanted) {}
    std::size_t part;
    bool rank;  // the ranks differ (got and wanted are ranks)
    std::size_t dimension, got, wanted;
};

// The axis `axis` of a tensor of `rank` dimensions, negative counting from the end; nothing
// when it is not one (-rank <= axis < rank).
bool resolve_axis(long long axis, std::size_t rank, std::size_t& resolved) noexcept;

// The parts (at least one, all of one rank) joined along `axis`: every other dimension must be
// equal (JoinError otherwise). Values are copied as they are.
Tensor concatenate(const std::vector<TensorView>& parts, std::size_t axis);

}  // namespace attn
