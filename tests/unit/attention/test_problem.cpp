// The resolved problem (attn/problem.hpp): structured shape errors, the K/V head of a query
// head, the visibility rule and the results' rank.
#include <doctest/doctest.h>

#include "attn/mask_bits.hpp"
#include "attn/problem.hpp"

using attn::Role;
using attn::Shape;
using attn::Tensor;

namespace {

// The ShapeError that resolving throws (its fields), or a failed check.
attn::ShapeError error_of(const Tensor& q, const Tensor& k, const Tensor& v, const attn::AttentionSpec& spec = {}) {
    try {
        attn::resolve_attention(q.view(), k.view(), v.view(), spec);
    } catch (const attn::ShapeError& e) {
        return e;
    }
    FAIL("no ShapeError");
    return attn::ShapeError(Role::queries, "", 0, 0, Role::queries, "");
}

}  // namespace

TEST_CASE("problem: shape errors carry role, dimension, got and wanted") {
    const attn::ShapeError dk = error_of(Tensor(Shape{3, 4}), Tensor(Shape{5, 6}), Tensor(Shape{5, 2}));
    CHECK(dk.role == Role::keys);
    CHECK(dk.other == Role::queries);
    CHECK(dk.dimension == "d_k");
    CHECK(dk.got == 6);
    CHECK(dk.wanted == 4);
    const attn::ShapeError len = error_of(Tensor(Shape{3, 4}), Tensor(Shape{5, 4}), Tensor(Shape{7, 2}));
    CHECK((len.role == Role::values && len.other == Role::keys && len.got == 7 && len.wanted == 5));
    const attn::ShapeError heads = error_of(Tensor(Shape{3, 2, 4}), Tensor(Shape{2, 5, 4}), Tensor(Shape{2, 5, 2}));
    CHECK((heads.role == Role::queries && heads.dimension == "heads" && heads.got == 3 && heads.wanted == 2));
    attn::AttentionSpec spec;
    spec.lengths = {6};
    const attn::ShapeError lengths = error_of(Tensor(Shape{3, 4}), Tensor(Shape{5, 4}), Tensor(Shape{5, 2}), spec);
    CHECK((lengths.role == Role::lengths && lengths.got == 6 && lengths.wanted == 5));
    const Tensor bias(Shape{3, 4});
    const attn::TensorView bv = bias.view();
    attn::AttentionSpec with_bias;
    with_bias.bias = &bv;
    const attn::ShapeError b = error_of(Tensor(Shape{3, 4}), Tensor(Shape{5, 4}), Tensor(Shape{5, 2}), with_bias);
    CHECK((b.role == Role::bias && b.dimension == "columns" && b.got == 4 && b.wanted == 5));
}

TEST_CASE("problem: grouped-query heads, visibility and rank") {
    // 6 query heads over 2 K/V heads, batch 2, bottom-right causal, lengths, a mask.
    const Tensor q(Shape{2, 6, 3, 4}), k(Shape{2, 2, 5, 4}), v(Shape{2, 2, 5, 2});
    Tensor mask(Shape{3, 5});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 5; ++j) mask.data()[i * mask.row_stride() + j] = (i + j) % 3 != 0;
    const attn::TensorView mv = mask.view();
    attn::AttentionSpec spec;
    spec.causal = attn::Causal::bottom_right;
    spec.lengths = {5, 3};
    spec.mask = &mv;
    const attn::AttentionProblem p = attn::resolve_attention(q.view(), k.view(), v.view(), spec);
    CHECK((p.B == 2 && p.H == 6 && p.G == 2));
    CHECK((p.kv_head(0) == 0 && p.kv_head(2) == 0 && p.kv_head(3) == 1 && p.kv_head(5) == 1));
    CHECK(p.k.at(1, p.kv_head(4)) == k.data() + (1 * 2 + 1) * 5 * k.row_stride());
    // Independent rule: j <= i + (length[b] - Tq) (bottom-right with lengths: ONNX's
    // nonpad_kv_seqlen rule), j < length[b], mask(i, j) != 0.
    std::size_t wrong = 0;
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t h = 0; h < 6; ++h)
            for (std::size_t i = 0; i < 3; ++i)
                for (std::size_t j = 0; j < 5; ++j) {
                    const bool want = (long long)j <= (long long)i + (long long)spec.lengths[b] - 3 &&
                                      j < spec.lengths[b] && (i + j) % 3 != 0;
                    wrong += p.allowed(b, h, i, j) != want;
                }
    CHECK(wrong == 0);
    CHECK(p.result_shape(true, 3, 2) == Shape{2, 6, 3, 2});
    CHECK(p.result_shape(false, 3, 5) == Shape{2, 3, 5});
    // 2-D in, 2-D out; a 3-D input gives a head dimension; HeadAxis::always adds one.
    const Tensor q2(Shape{3, 4}), k2(Shape{5, 4}), v2(Shape{5, 2});
    CHECK(attn::resolve_attention(q2.view(), k2.view(), v2.view(), {}).result_shape(true, 3, 2) == Shape{3, 2});
    attn::AttentionSpec heads;
    heads.head_axis = attn::HeadAxis::always;
    CHECK(attn::resolve_attention(q2.view(), k2.view(), v2.view(), heads).result_shape(true, 3, 2) == Shape{1, 3, 2});
}
