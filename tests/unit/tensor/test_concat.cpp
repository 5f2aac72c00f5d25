// Joining tensors (attn/concat.hpp) against an element-by-element rule: out[..., a + offset_k, ...]
// = part_k[..., a, ...].
#include <doctest/doctest.h>

#include "attn/concat.hpp"

using attn::Shape;
using attn::Tensor;

TEST_CASE("concat: joins along every axis of 3-D parts, and says which part does not fit") {
    for (std::size_t axis = 0; axis < 3; ++axis) {
        Shape sa{2, 3, 4}, sb{2, 3, 4};
        std::vector<std::size_t> db = sb.to_vector();
        db[axis] = 1 + axis;  // another extent along the axis
        sb = Shape(db);
        Tensor a(sa), b(sb);
        auto fill = [](Tensor& t, float base) {
            const std::size_t d0 = t.shape()[0], d1 = t.shape()[1], d2 = t.shape()[2];
            for (std::size_t i = 0; i < d0; ++i)
                for (std::size_t j = 0; j < d1; ++j)
                    for (std::size_t k = 0; k < d2; ++k)
                        t.slice_data(i)[j * t.row_stride() + k] = base + float(100 * i + 10 * j + k);
        };
        fill(a, 0), fill(b, 1000);
        const Tensor c = attn::concatenate({a.view(), b.view()}, axis);
        CHECK(c.shape()[axis] == sa[axis] + sb[axis]);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < c.shape()[0]; ++i)
            for (std::size_t j = 0; j < c.shape()[1]; ++j)
                for (std::size_t k = 0; k < c.shape()[2]; ++k) {
                    std::size_t idx[3] = {i, j, k};
                    const bool from_b = idx[axis] >= sa[axis];
                    if (from_b) idx[axis] -= sa[axis];
                    const float want = (from_b ? 1000.0f : 0.0f) + float(100 * idx[0] + 10 * idx[1] + idx[2]);
                    wrong += c.slice_data(i)[j * c.row_stride() + k] != want;
                }
        CHECK(wrong == 0);
    }
    const Tensor a(Shape{2, 3}), b(Shape{2, 4}), r3(Shape{1, 2, 3});
    try {
        attn::concatenate({a.view(), a.view(), b.view()}, 0);
        FAIL("joined 2x3 and 2x4 along axis 0");
    } catch (const attn::JoinError& e) {
        CHECK((e.part == 2 && !e.rank && e.dimension == 1 && e.got == 4 && e.wanted == 3));
    }
    CHECK_THROWS_AS(attn::concatenate({a.view(), r3.view()}, 0), attn::JoinError);
    std::size_t axis = 9;
    CHECK((attn::resolve_axis(-1, 3, axis) && axis == 2));
    CHECK(!attn::resolve_axis(3, 3, axis));
    CHECK(!attn::resolve_axis(-4, 3, axis));
}
